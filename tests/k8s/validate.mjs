// Validates Kubernetes objects (a JSON array, argv[2]) against the Kubernetes OpenAPI schemas that
// kubernetes-models (pinned in package-lock.json) bundles: each object by its apiVersion and kind,
// with the model's validate() (ajv). It checks types, required fields and allowed values; the
// schemas do not refuse unknown fields. Prints one line per object; exit 1 when any is refused.
import { readFileSync } from "node:fs";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { Job } from "kubernetes-models/batch/v1/Job";

const models = { "v1/ConfigMap": ConfigMap, "batch/v1/Job": Job };
const docs = JSON.parse(readFileSync(process.argv[2], "utf8"));
let bad = 0;
for (const d of docs) {
  const key = `${d.apiVersion}/${d.kind}`;
  const M = models[key];
  const name = `${key} ${d.metadata?.name ?? "(no name)"}`;
  if (!M) {
    console.log(`refused: ${name}: no schema here for this kind`);
    bad++;
    continue;
  }
  try {
    new M(d).validate();
    console.log(`valid: ${name}`);
  } catch (e) {
    console.log(`refused: ${name}: ${e.message}`);
    bad++;
  }
}
process.exit(bad ? 1 : 0);
