#!/usr/bin/env python3
"""The Kubernetes manifests of `goblin slurm-script --k8s` (docs/scale.md) against the Kubernetes
OpenAPI schemas, offline: the objects of summarize-job.yaml (ConfigMap + Indexed Job) and
reduce-job.yaml (Job) are validated by kubernetes-models (tests/k8s/package.json, installed by
scripts/bootstrap with `npm ci`), and a manifest with a wrong type must be refused (the validator is
live). This is a schema check, not a run on a cluster: none is available here.
Without node or tests/k8s/node_modules the test says so and FAILS."""
import argparse
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile

import yaml


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def validate(here, docs, work, name):
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump(docs, f)
    r = subprocess.run(["node", os.path.join(here, "validate.mjs"), path], capture_output=True, text=True)
    return r.returncode, (r.stdout + r.stderr).strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--goblin", required=True)
    ap.add_argument("--source", required=True)
    a = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    if not shutil.which("node"):
        fail("node is not installed (scripts/bootstrap)")
    if not os.path.isdir(os.path.join(here, "node_modules", "kubernetes-models")):
        fail("tests/k8s/node_modules is missing: run scripts/bootstrap (npm ci in tests/k8s)")
    work = tempfile.mkdtemp(prefix="goblin_k8s_")
    try:
        out = os.path.join(work, "k8s")
        traces = os.path.join(a.source, "examples/ddp_h200/straggler_data")
        r = subprocess.run([a.goblin, "slurm-script", traces, "--k8s", "--image", "registry.example/goblin:0.1",
                            "--claim", "job42-data", "--mount", "/data", "--parallel", "1", "-o", out],
                           capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"goblin slurm-script --k8s failed ({r.returncode}): {r.stdout}{r.stderr}")
        docs = []
        for f in ("summarize-job.yaml", "reduce-job.yaml"):
            with open(os.path.join(out, f)) as fh:
                docs += [d for d in yaml.safe_load_all(fh) if d is not None]
        kinds = sorted(f"{d['apiVersion']}/{d['kind']}" for d in docs)
        if kinds != ["batch/v1/Job", "batch/v1/Job", "v1/ConfigMap"]:
            fail(f"expected a ConfigMap and two Jobs, got {kinds}")
        job = next(d for d in docs if d["metadata"]["name"] == "goblin-summarize")
        if job["spec"]["completionMode"] != "Indexed" or job["spec"]["completions"] != 2:
            fail(f"the map is not an Indexed Job of 2 completions: {job['spec']}")
        rc, text = validate(here, docs, work, "manifests")
        print(text)
        if rc != 0:
            fail("the manifests do not validate")
        broken = copy.deepcopy(job)
        broken["spec"]["completions"] = "two"
        rc, text = validate(here, [broken], work, "broken")
        if rc == 0:
            fail("a Job with completions: \"two\" validated: the validator is not checking")
        print("ok: a broken Job is refused: " + text.splitlines()[-1][:200])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("PASS")


if __name__ == "__main__":
    main()
