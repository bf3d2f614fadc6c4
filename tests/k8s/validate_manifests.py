#!/usr/bin/python3
"""Validates pdctl's Kubernetes manifests (ctest k8s_manifest_schemas, label k8s).

    validate_manifests.py SOURCE_DIR [PDCTL_BINARY]

1. tests/golden/k8s.{lws,rbg}.yaml validate: each LeaderWorkerSet and RoleBasedGroup against the
   upstream CRD schema in tests/k8s/schemas/ (README.md there says which release), read as the API
   server reads a structural schema: x-kubernetes-int-or-string is integer-or-string, and a field no
   schema names is an error (kubectl --validate=strict) unless x-kubernetes-preserve-unknown-fields
   allows it. Deployments and Services: their required fields and types, with the pod template and
   service ports checked against the same upstream schemas (LWS's PodTemplateSpec, RBG's ServicePort).
   Then what a schema cannot say: every $(VAR) of a container is defined, selectors match, names fit.
2. With PDCTL_BINARY: the binary's `export k8s` output is the golden file byte for byte, the process
   profile exports (with --image) and validates, and without --image it is refused naming the roles.
3. Deliberately broken manifests (tests/k8s/broken.yaml, and mutations of the goldens) are rejected:
   a validator that passes everything fails this test.
Needs Debian's python3-yaml and python3-jsonschema (.ci/install-deps); exits 77 (skip) without them,
except under CI.
"""
import copy
import json
import os
import re
import subprocess
import sys
import tempfile

try:
    import jsonschema
    import yaml
except ImportError as error:  # pragma: no cover
    print(f"skipped: {error} (apt-get install python3-yaml python3-jsonschema)")
    sys.exit(1 if os.environ.get("CI") else 77)

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMAS = os.path.join(HERE, "schemas")
LWS_SCHEMA = "lws-v0.10.0.leaderworkerset-v1.json"
RBG_SCHEMA = "rbg-v0.7.0.rolebasedgroup-v1alpha2.json"

DNS_LABEL = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
LABEL_KEY = r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$"
LABEL_VALUE = r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$"
OBJECT_META = {
    "type": "object",
    "required": ["name"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "pattern": DNS_LABEL, "maxLength": 63},
        "namespace": {"type": "string", "pattern": DNS_LABEL, "maxLength": 63},
        "labels": {"type": "object", "propertyNames": {"pattern": LABEL_KEY},
                   "additionalProperties": {"type": "string", "pattern": LABEL_VALUE, "maxLength": 63}},
        "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
    },
}


def structural(schema):
    """A CRD's OpenAPI v3 schema as JSON Schema with the API server's reading of it."""
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    for key in ("items", "not", "additionalProperties"):
        if isinstance(out.get(key), dict):
            out[key] = structural(out[key])
    for key in ("anyOf", "allOf", "oneOf"):
        if key in out:
            out[key] = [structural(item) for item in out[key]]
    if "properties" in out:
        out["properties"] = {name: structural(sub) for name, sub in out["properties"].items()}
    if out.get("x-kubernetes-int-or-string"):
        # No `type`: JSON Schema alone would take anything; the API server takes an int or a string.
        out.setdefault("anyOf", [{"type": "integer"}, {"type": "string"}])
    if ("properties" in out and "additionalProperties" not in out
            and not out.get("x-kubernetes-preserve-unknown-fields")):
        out["additionalProperties"] = False  # unknown fields: pruned by the server, an error here
    return out


def crd_schema(file_name, api_version, kind):
    with open(os.path.join(SCHEMAS, file_name)) as handle:
        schema = structural(json.load(handle))
    schema["required"] = sorted(set(schema.get("required", [])) | {"apiVersion", "kind", "metadata", "spec"})
    schema["properties"]["apiVersion"] = {"const": api_version}
    schema["properties"]["kind"] = {"const": kind}
    schema["properties"]["metadata"] = OBJECT_META
    return schema


LWS = crd_schema(LWS_SCHEMA, "leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet")
RBG = crd_schema(RBG_SCHEMA, "workloads.x-k8s.io/v1alpha2", "RoleBasedGroup")
POD_TEMPLATE = LWS["properties"]["spec"]["properties"]["leaderWorkerTemplate"]["properties"]["workerTemplate"]
SERVICE_PORT = RBG["properties"]["spec"]["properties"]["roles"]["items"]["properties"]["servicePorts"]["items"]
LABEL_MAP = {"type": "object", "additionalProperties": {"type": "string"}, "minProperties": 1}
DEPLOYMENT = {
    "type": "object", "required": ["apiVersion", "kind", "metadata", "spec"], "additionalProperties": False,
    "properties": {
        "apiVersion": {"const": "apps/v1"}, "kind": {"const": "Deployment"}, "metadata": OBJECT_META,
        "spec": {"type": "object", "required": ["selector", "template"], "additionalProperties": False,
                 "properties": {
                     "replicas": {"type": "integer", "minimum": 0},
                     "selector": {"type": "object", "additionalProperties": False,
                                  "properties": {"matchLabels": LABEL_MAP, "matchExpressions": {"type": "array"}}},
                     "strategy": {"type": "object", "additionalProperties": False,
                                  "properties": {"type": {"enum": ["Recreate", "RollingUpdate"]},
                                                 "rollingUpdate": {"type": "object"}}},
                     "minReadySeconds": {"type": "integer"}, "revisionHistoryLimit": {"type": "integer"},
                     "progressDeadlineSeconds": {"type": "integer"}, "paused": {"type": "boolean"},
                     "template": POD_TEMPLATE}}}}
SERVICE = {
    "type": "object", "required": ["apiVersion", "kind", "metadata", "spec"], "additionalProperties": False,
    "properties": {
        "apiVersion": {"const": "v1"}, "kind": {"const": "Service"}, "metadata": OBJECT_META,
        "spec": {"type": "object", "required": ["ports"], "additionalProperties": False,
                 "properties": {
                     "selector": LABEL_MAP,
                     "ports": {"type": "array", "minItems": 1, "items": SERVICE_PORT},
                     "type": {"enum": ["ClusterIP", "NodePort", "LoadBalancer", "ExternalName"]},
                     "clusterIP": {"type": "string"}, "publishNotReadyAddresses": {"type": "boolean"}}}}}
SCHEMA_BY_KIND = {"LeaderWorkerSet": LWS, "RoleBasedGroup": RBG, "Deployment": DEPLOYMENT, "Service": SERVICE}
# Variables the controllers put in every container of a group (lws leaderworkerset_types.go,
# rbg constants/env.go).
CONTROLLER_VARS = {"LeaderWorkerSet": {"LWS_LEADER_ADDRESS", "LWS_WORKER_INDEX", "LWS_GROUP_SIZE"},
                   "RoleBasedGroup": {"RBG_LWP_LEADER_ADDRESS", "RBG_LWP_WORKER_INDEX", "RBG_LWP_GROUP_SIZE"}}


def pod_templates(doc):
    """(where, pod template) of every pod template in a manifest."""
    kind = doc.get("kind")
    spec = doc.get("spec") or {}
    if kind == "LeaderWorkerSet":
        lwt = spec.get("leaderWorkerTemplate") or {}
        for key in ("leaderTemplate", "workerTemplate"):
            if key in lwt:
                yield f"spec.leaderWorkerTemplate.{key}", lwt[key]
    elif kind == "Deployment" and "template" in spec:
        yield "spec.template", spec["template"]
    elif kind == "RoleBasedGroup":
        for i, role in enumerate(spec.get("roles") or []):
            for pattern in ("standalonePattern", "leaderWorkerPattern"):
                if isinstance(role.get(pattern), dict) and "template" in role[pattern]:
                    yield f"spec.roles[{i}].{pattern}.template", role[pattern]["template"]


def semantic_errors(doc):
    """What the schemas cannot say."""
    errors = []
    kind = doc.get("kind")
    for where, template in pod_templates(doc):
        for c, container in enumerate(((template.get("spec") or {}).get("containers")) or []):
            defined = {env.get("name") for env in container.get("env") or []} | CONTROLLER_VARS.get(kind, set())
            words = list(container.get("command") or []) + list(container.get("args") or [])
            for word in words:
                for var in re.findall(r"(?<!\$)\$\(([A-Za-z_][A-Za-z0-9_]*)\)", str(word).replace("$$", "")):
                    if var not in defined:
                        errors.append(f"{where}.containers[{c}]: $({var}) is not defined in the container")
            ports = [port.get("name") for port in container.get("ports") or []]
            if len(ports) != len(set(ports)):
                errors.append(f"{where}.containers[{c}]: duplicate port names {ports}")
        spec = template.get("spec") or {}
        if spec.get("hostNetwork") and spec.get("dnsPolicy") != "ClusterFirstWithHostNet":
            errors.append(f"{where}: hostNetwork without dnsPolicy ClusterFirstWithHostNet cannot resolve "
                          "the cluster's names")
    if kind == "Deployment":
        spec = doc.get("spec") or {}
        wanted = (spec.get("selector") or {}).get("matchLabels") or {}
        labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
        if any(labels.get(key) != value for key, value in wanted.items()):
            errors.append("spec.selector does not select spec.template's labels")
    if kind == "RoleBasedGroup":
        roles = (doc.get("spec") or {}).get("roles") or []
        names = [role.get("name") for role in roles]
        for role in roles:
            for dependency in role.get("dependencies") or []:
                if dependency not in names:
                    errors.append(f"role {role.get('name')}: dependency {dependency} is not a role")
            if "standalonePattern" in role and "leaderWorkerPattern" in role:
                errors.append(f"role {role.get('name')}: standalonePattern and leaderWorkerPattern")
    return errors


def manifest_errors(docs):
    errors = []
    services = [d for d in docs if isinstance(d, dict) and d.get("kind") == "Service"]
    pods = [t for d in docs if isinstance(d, dict) for _, t in pod_templates(d)]
    for index, doc in enumerate(docs):
        if not isinstance(doc, dict) or doc.get("kind") not in SCHEMA_BY_KIND:
            errors.append(f"document {index}: unknown kind {doc.get('kind') if isinstance(doc, dict) else doc!r}")
            continue
        name = f"document {index} ({doc['kind']} {(doc.get('metadata') or {}).get('name')})"
        validator = jsonschema.Draft7Validator(SCHEMA_BY_KIND[doc["kind"]])
        for error in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
            path = ".".join(str(part) for part in error.absolute_path)
            errors.append(f"{name}: {path}: {error.message[:300]}")
        errors += [f"{name}: {message}" for message in semantic_errors(doc)]
    for service in services:
        selector = (service.get("spec") or {}).get("selector") or {}
        if not any(all(((t.get("metadata") or {}).get("labels") or {}).get(k) == v for k, v in selector.items())
                   for t in pods):
            errors.append(f"Service {service['metadata'].get('name')}: selects no pod template")
    return errors


def load(text):
    return [doc for doc in yaml.safe_load_all(text) if doc is not None]


def expect_valid(label, docs):
    errors = manifest_errors(docs)
    if errors:
        raise AssertionError(f"{label}: {len(errors)} errors:\n  " + "\n  ".join(errors))
    print(f"ok      {label}: {len(docs)} objects valid")


def expect_invalid(label, docs, needle):
    errors = manifest_errors(docs)
    if not any(needle in error for error in errors):
        raise AssertionError(f"{label}: expected an error containing {needle!r}, got {errors}")
    print(f"ok      {label}: rejected ({needle})")


def broken_variants(lws_docs, rbg_docs):
    """(label, documents, expected error text): one defect each, as a person might make it by hand."""
    def lws(mutate):
        docs = copy.deepcopy(lws_docs)
        mutate(next(d for d in docs if d["kind"] == "LeaderWorkerSet"), docs)
        return docs

    def rbg(mutate):
        docs = copy.deepcopy(rbg_docs)
        mutate(docs[0], docs)
        return docs

    def worker(doc):
        return doc["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"]["containers"][0]

    def set_(target, key, value):
        target[key] = value

    yield ("size as a string", lws(lambda d, _: set_(d["spec"]["leaderWorkerTemplate"], "size", "4")),
           "is not of type 'integer'")
    yield ("an unknown field", lws(lambda d, _: set_(d["spec"], "startupPolicyy", "LeaderCreated")),
           "Additional properties are not allowed")
    yield ("startupPolicy not in its enum", lws(lambda d, _: set_(d["spec"], "startupPolicy", "LeaderWaits")),
           "is not one of")
    yield ("an unquoted port in args", lws(lambda d, _: worker(d)["args"].append(8998)),
           "is not of type 'string'")
    yield ("an int-or-string port as a list", lws(lambda d, _: set_(worker(d)["livenessProbe"]["httpGet"], "port", [30000])),
           "is not valid under any of the given schemas")
    yield ("a GPU quantity as a boolean", lws(lambda d, _: set_(worker(d)["resources"]["limits"], "nvidia.com/gpu", True)),
           "is not valid under any of the given schemas")
    yield ("an env var with a typo in args", lws(lambda d, _: worker(d)["args"].append("$(LWS_WORKER_INDX)")),
           "$(LWS_WORKER_INDX) is not defined")
    yield ("an upper-case name", lws(lambda d, _: set_(d["metadata"], "name", "Kimi3-Prefill")),
           "does not match")
    yield ("a Deployment without a selector",
           lws(lambda _, docs: next(x for x in docs if x["kind"] == "Deployment")["spec"].pop("selector")),
           "'selector' is a required property")
    yield ("a Service port without its number",
           lws(lambda _, docs: next(x for x in docs if x["kind"] == "Service")["spec"]["ports"][0].pop("port")),
           "'port' is a required property")
    yield ("a role without a name", rbg(lambda d, _: d["spec"]["roles"][1].pop("name")),
           "'name' is a required property")
    yield ("a dependency on no role", rbg(lambda d, _: d["spec"]["roles"][1].__setitem__("dependencies", ["master"])),
           "dependency master is not a role")
    yield ("restartPolicy not in its enum",
           rbg(lambda d, _: set_(d["spec"]["roles"][1]["leaderWorkerPattern"], "restartPolicy", "Always")),
           "is not one of")


def check_binary(source, pdctl):
    def run(*args):
        return subprocess.run([pdctl, *args], cwd=source, capture_output=True, text=True, timeout=60)

    production = "profiles/kimi3-pro6000-pd/pdctl.yaml"  # plan only: nothing is contacted
    for fmt in ("lws", "rbg"):
        result = run("-c", production, "export", "k8s", "--format", fmt)
        if result.returncode != 0:
            raise AssertionError(f"pdctl export k8s --format {fmt}: exit {result.returncode}: {result.stderr}")
        with open(os.path.join(source, "tests", "golden", f"k8s.{fmt}.yaml")) as handle:
            if result.stdout != handle.read():
                raise AssertionError(f"pdctl export k8s --format {fmt} differs from tests/golden/k8s.{fmt}.yaml")
        print(f"ok      pdctl export k8s --format {fmt}: the golden file")
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "local.yaml")
        result = run("-c", "profiles/local/pdctl.yaml", "export", "k8s", "--format", "rbg", "--image",
                     "registry.example/pdsim:1", "-o", out)
        if result.returncode != 0:
            raise AssertionError(f"export of profiles/local: exit {result.returncode}: {result.stderr}")
        with open(out) as handle:
            expect_valid("profiles/local --image, -o FILE", load(handle.read()))
    result = run("-c", "profiles/local/pdctl.yaml", "export", "k8s", "--format", "lws")
    if result.returncode != 2 or "profiles/local/pdctl.yaml:" not in result.stderr or \
            "roles.prefill: runs as a process" not in result.stderr or result.stdout:
        raise AssertionError(f"no image: expected exit 2 naming the roles, got {result.returncode}: {result.stderr}")
    print("ok      profiles/local without --image: exit 2, roles named at their lines")


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    source = sys.argv[1]
    goldens = {}
    for fmt in ("lws", "rbg"):
        with open(os.path.join(source, "tests", "golden", f"k8s.{fmt}.yaml")) as handle:
            goldens[fmt] = load(handle.read())
        expect_valid(f"tests/golden/k8s.{fmt}.yaml", goldens[fmt])
    kinds = sorted({doc["kind"] for docs in goldens.values() for doc in docs})
    assert kinds == ["Deployment", "LeaderWorkerSet", "RoleBasedGroup", "Service"], kinds
    with open(os.path.join(HERE, "broken.yaml")) as handle:
        broken = load(handle.read())
    expect_invalid("tests/k8s/broken.yaml", broken, "Additional properties are not allowed")
    if len(manifest_errors(broken)) < 6:  # one per `defect` line
        raise AssertionError(f"tests/k8s/broken.yaml: expected every planted defect found, got {manifest_errors(broken)}")
    for label, docs, needle in broken_variants(goldens["lws"], goldens["rbg"]):
        expect_invalid(label, docs, needle)
    if len(sys.argv) == 3:
        check_binary(source, sys.argv[2])
    print("all checks passed")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as failure:
        print(f"FAILED  {failure}")
        sys.exit(1)
