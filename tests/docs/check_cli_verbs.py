#!/usr/bin/env python3
"""Every verb of the registry (`goblin verbs --json`) is a command of the CLI: `goblin NAME --help`
exits 0 and shows that command's usage (`Usage: goblin NAME`; an unknown command's --help shows
the root's). The CLI door loops over the registry (src/cli/cli_registry.cpp): this checks, end to
end through the built binary, that the loop reaches every verb the registry offers to the CLI.

usage: check_cli_verbs.py --goblin build/goblin     exits 1 listing each verb the CLI lacks
"""
import argparse
import json
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--goblin", required=True)
    args = ap.parse_args()
    env = json.loads(subprocess.run([args.goblin, "verbs", "--json"], capture_output=True, text=True,
                                    timeout=60, check=True).stdout)
    names = [v["name"] for v in env["result"]["verbs"]]
    missing = []
    for name in names:
        r = subprocess.run([args.goblin, *name.split(), "--help"], capture_output=True, text=True, timeout=60)
        if r.returncode != 0 or f"Usage: goblin {name} " not in r.stdout:
            missing.append(f"{name}: `goblin {name} --help` exited {r.returncode} without its usage line")
    for m in missing:
        print(m)
    print(f"check_cli_verbs: {len(names)} registry verbs, {len(missing)} missing from the CLI")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
