#!/usr/bin/python3
"""Writes one version's openAPIV3Schema of an upstream CRD as JSON, for validate_manifests.py.

    git show COMMIT:config/crd/bases/FILE.yaml | extract_schema.py VERSION > OUT.json

Only the `description` texts are dropped (they are documentation, not constraints, and most of the
size); every other keyword, the x-kubernetes-* extensions included, is kept as upstream wrote it.
Keys are sorted so that a regenerated file differs only where upstream changed.
"""
import json
import sys

import yaml


def without_descriptions(node):
    if isinstance(node, dict):
        # A property may itself be called "description": only drop the keyword, i.e. a string value.
        return {key: without_descriptions(value) for key, value in node.items()
                if not (key == "description" and isinstance(value, str))}
    if isinstance(node, list):
        return [without_descriptions(item) for item in node]
    return node


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: extract_schema.py VERSION < CRD.yaml > SCHEMA.json")
    crd = yaml.safe_load(sys.stdin)
    for version in crd["spec"]["versions"]:
        if version["name"] == sys.argv[1]:
            schema = without_descriptions(version["schema"]["openAPIV3Schema"])
            json.dump(schema, sys.stdout, sort_keys=True, separators=(",", ":"))
            sys.stdout.write("\n")
            return
    sys.exit(f"no version {sys.argv[1]} in {crd['metadata']['name']}")


if __name__ == "__main__":
    main()
