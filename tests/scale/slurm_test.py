#!/usr/bin/env python3
"""goblin slurm-script on a REAL Slurm (docs/scale.md): starts a one-node cluster itself (munged,
slurmctld, slurmd from Debian's slurm-wlm and munge, a generated slurm.conf in a temporary
directory, free ports), submits the map array + reduce job that `goblin slurm-script` writes over
(1) the real 2-rank H200 DDP traces (one reduce level) and (2) a synthetic 64-rank set made from
them with one injected straggler (bench/scale/make_ranks.py) in two levels (--group-size 16: a
group array folds the summaries into four group summaries, the reduce reads those), waits for the
reduce, and checks that its output equals single-process `goblin ranks` over the same traces.
Stops the daemons after.

Where the daemons cannot run here, the test says why and FAILS (it is never skipped silently).
"""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tail(path, n=20):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-n:])
    except OSError:
        return "(no " + path + ")"


class Cluster:
    def __init__(self, root):
        self.root = root
        self.procs = []
        self.env = dict(os.environ, SLURM_CONF=os.path.join(root, "slurm.conf"))

    def start(self):
        for tool in ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo"):
            if not shutil.which(tool) and not os.path.exists("/usr/sbin/" + tool):
                fail(f"{tool} is not installed: run scripts/bootstrap (Debian packages slurm-wlm, munge)")
        r = self.root
        os.chmod(r, 0o755)
        for d in ("state", "spool", "logs"):
            os.makedirs(os.path.join(r, d), exist_ok=True)
        key = os.path.join(r, "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o600)
        sock = os.path.join(r, "munge.sock")
        self.spawn(["munged", "-F", "-f", f"--socket={sock}", f"--key-file={key}",
                    f"--log-file={r}/munged.log", f"--pid-file={r}/munged.pid", f"--seed-file={r}/munged.seed"],
                   "munged")
        for _ in range(50):
            if os.path.exists(sock):
                break
            time.sleep(0.1)
        else:
            fail("munged did not start here:\n" + tail(f"{r}/munged.log"))
        host = socket.gethostname()
        conf = f"""ClusterName=goblintest
SlurmctldHost={host}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={sock}
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
StateSaveLocation={r}/state
SlurmdSpoolDir={r}/spool
SlurmctldPidFile={r}/slurmctld.pid
SlurmdPidFile={r}/slurmd.pid
SlurmctldLogFile={r}/slurmctld.log
SlurmdLogFile={r}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
SwitchType=switch/none
MaxArraySize=10001
NodeName={host} NodeAddr=127.0.0.1 CPUs={os.cpu_count() or 1} RealMemory=1000 State=UNKNOWN
PartitionName=goblin Nodes=ALL Default=YES MaxTime=INFINITE State=UP
"""
        with open(self.env["SLURM_CONF"], "w") as f:
            f.write(conf)
        self.spawn(["slurmctld", "-D", "-i", "-f", self.env["SLURM_CONF"]], "slurmctld")
        self.spawn(["slurmd", "-D", "-f", self.env["SLURM_CONF"]], "slurmd")
        deadline = time.time() + 60
        while time.time() < deadline:
            out = subprocess.run(["sinfo", "-h", "-o", "%t"], env=self.env, capture_output=True, text=True)
            if out.returncode == 0 and out.stdout.strip() in ("idle", "mix", "alloc"):
                return
            for p, name in self.procs:
                if p.poll() is not None:
                    fail(f"the Slurm daemons cannot run here: {name} exited with {p.returncode}:\n"
                         + tail(f"{r}/{name}.log") + tail(f"{r}/{name}.out"))
            time.sleep(0.5)
        fail("the Slurm node did not come up within 60 s:\n" + tail(f"{r}/slurmctld.log") + tail(f"{r}/slurmd.log"))

    def spawn(self, cmd, name):
        out = open(os.path.join(self.root, name + ".out"), "w")
        exe = shutil.which(cmd[0]) or "/usr/sbin/" + cmd[0]
        self.procs.append((subprocess.Popen([exe] + cmd[1:], stdout=out, stderr=subprocess.STDOUT, env=self.env),
                           name))

    def stop(self):
        subprocess.run(["scancel", "--user=root"], env=self.env, capture_output=True)
        for p, _ in reversed(self.procs):
            if p.poll() is None:
                p.terminate()
        for p, _ in reversed(self.procs):
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def run_job(cluster, goblin, traces, out, timeout, extra=()):
    """slurm-script + submit.sh, then wait for the reduce's ranks.json; returns (its text, trace list)."""
    r = subprocess.run([goblin, "slurm-script", *traces, "-o", out, "--goblin", goblin, "--cpus", "1",
                        "--time", "00:10:00", *extra], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"goblin slurm-script failed ({r.returncode}): {r.stdout}{r.stderr}")
    sub = subprocess.run(["bash", os.path.join(out, "submit.sh")], env=cluster.env, capture_output=True, text=True)
    if sub.returncode != 0:
        fail(f"submit.sh failed: {sub.stdout}{sub.stderr}")
    print(sub.stdout.strip())
    result = os.path.join(out, "ranks.json")
    deadline = time.time() + timeout
    while time.time() < deadline:
        q = subprocess.run(["squeue", "-h"], env=cluster.env, capture_output=True, text=True)
        if os.path.exists(result) and q.stdout.strip() == "":
            with open(result) as f:
                text = f.read()
            with open(os.path.join(out, "traces.txt")) as f:
                listed = f.read().split()
            return text, listed
        time.sleep(1)
    logs = os.path.join(out, "logs")
    fail(f"the reduce did not finish within {timeout} s; squeue: {q.stdout}\n"
         + "".join(tail(os.path.join(logs, f), 5) for f in sorted(os.listdir(logs))[:4]))


def without_hosts(doc):
    """The map records each rank's host (summarize --host); a trace does not name it. The ranks'
    host and the node view are checked apart; everything else must be identical."""
    res = doc.get("result") or {}
    hosts = [r.pop("host", None) for r in res.get("ranks", [])]
    topo = res.get("topology", {})
    nodes, slow = topo.pop("nodes", None), topo.pop("slow_node", None)
    return hosts, nodes, slow


def check(goblin, name, text, traces, expect_straggler):
    direct = subprocess.run([goblin, "ranks", *traces, "--json"], capture_output=True, text=True)
    a, b = json.loads(text), json.loads(direct.stdout)
    hosts, nodes, _ = without_hosts(a)
    without_hosts(b)
    if a != b:
        fail(f"{name}: the Slurm reduce differs from goblin ranks over the traces\n"
             f"slurm: {json.dumps(a)[:3000]}\ndirect: {json.dumps(b)[:3000]}")
    host = socket.gethostname()
    if set(hosts) != {host} or len(nodes) != 1 or nodes[0]["host"] != host or len(nodes[0]["ranks"]) != len(hosts):
        fail(f"{name}: every rank should be on {host}: hosts {set(hosts)}, nodes {nodes}")
    res = a["result"]
    s = res["straggler"]
    if s.get("named") != (expect_straggler is not None) or (expect_straggler is not None and
                                                             s.get("rank") != expect_straggler):
        fail(f"{name}: straggler {s} (expected rank {expect_straggler})")
    print(f"ok: {name}: {res['ranks_analysed']} ranks, reduce == goblin ranks, straggler rank {s.get('rank')}, "
          f"all on {host}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--goblin", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--ranks", type=int, default=64)
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    a = ap.parse_args()
    goblin = os.path.abspath(a.goblin)
    root = tempfile.mkdtemp(prefix="goblin_slurm_")
    cluster = Cluster(root)
    try:
        cluster.start()
        print(f"one-node Slurm up in {root}")
        # (1) the real 2-rank traces: rank 1's data loading is the straggler.
        real = os.path.join(a.source, "examples/ddp_h200/straggler_data")
        text, listed = run_job(cluster, goblin, [real], os.path.join(root, "real"), 300)
        check(goblin, "real 2-rank H200 traces", text, listed, 1)
        # (2) synthetic ranks from them, one straggler injected.
        syn = os.path.join(root, "traces64")
        straggler = a.ranks * 3 // 5
        subprocess.run([sys.executable, os.path.join(a.source, "bench/scale/make_ranks.py"), "traces",
                        os.path.join(real, "rank0.pt.trace.json.gz"), os.path.join(real, "rank1.pt.trace.json.gz"),
                        "--ranks", str(a.ranks), "--straggler", str(straggler), "-o", syn], check=True)
        # Two-level: the map array, an array folding each 16 summaries into a group summary
        # (summarize --merge), the reduce over the groups.
        out = os.path.join(root, "syn")
        text, listed = run_job(cluster, goblin, [syn], out, 1200, ["--group-size", "16"])
        gdir = os.path.join(out, "groups")
        groups = sorted(os.path.join(d, f) for d in os.listdir(gdir) for f in os.listdir(os.path.join(gdir, d)))
        expect = [f"group{g}/ranks{g * 16}-{g * 16 + 15}.group.json.gz" for g in range((a.ranks + 15) // 16)]
        if sorted(groups) != sorted(expect):
            fail(f"two-level reduce: group summaries {groups}, expected {expect}")
        check(goblin, f"synthetic {a.ranks}-rank set, two-level reduce ({len(groups)} groups)", text, listed,
              straggler)
    finally:
        cluster.stop()
        if not a.keep:
            shutil.rmtree(root, ignore_errors=True)
    print("PASS")


if __name__ == "__main__":
    main()
