import json
import statistics
import subprocess
import sys
import time
old, new, f = sys.argv[2], sys.argv[3], sys.argv[4]  # the 46f24f3 binary, this tree's, the trace
def run(b, args):
    t0=time.time()
    p=subprocess.Popen(["/usr/bin/time","-f","%U %S %M",b]+args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _,err=p.communicate()
    u,s,m=err.strip().split("\n")[-1].split()
    return {"wall":time.time()-t0,"cpu":float(u)+float(s),"rss_kib":int(m)}
rows=[]
subprocess.run(["cat",f],stdout=subprocess.DEVNULL)
for verb,args in [("info",["info",f]),("triage",["triage",f,"-o","tri_out"])]:
    for i in range(int(sys.argv[1])):
        for name,b in [("46f24f3",old),("main",new)]:
            r=run(b,args); r.update(verb=verb,binary=name,i=i); rows.append(r); print(json.dumps(r),flush=True)
json.dump(rows,open("rows.json","w"),indent=1)
for verb in ["info","triage"]:
    for name in ["46f24f3","main"]:
        rs=[r for r in rows if r["verb"]==verb and r["binary"]==name]
        print(verb,name,"cpu",statistics.median(r["cpu"] for r in rs),"wall",statistics.median(r["wall"] for r in rs),"rss_MiB",statistics.median(r["rss_kib"] for r in rs)/1024)
