#!/usr/bin/env python3
"""run_action.py ACTION_YML INPUTS_JSON — runs a composite GitHub Action's steps the way GitHub's
runner does, for ci/action_test.sh: `${{ ... }}` expressions are substituted as text (into env:
values, working-directory and names, and — where an action is careless — into run: scripts, which
is exactly how an input becomes code), each run: script is a file run by
`bash --noprofile --norc -eo pipefail FILE`, $GITHUB_PATH entries are prepended to PATH for the
later steps, $GITHUB_OUTPUT lines become steps.<id>.outputs, and the first failing step ends the
run with its status. In a composite action github.action_repository is empty (a known runner
limitation), and so it is here.

Before running anything it refuses (exit 90) an action whose run: scripts contain `${{`: inputs
must reach scripts through env: only. The caller sets GITHUB_ACTION_PATH, GITHUB_WORKSPACE,
RUNNER_TEMP, GITHUB_PATH, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY. Uses PyYAML (Debian's python3-yaml,
installed by ci/setup.sh test)."""
import json
import os
import re
import subprocess
import sys
import tempfile

import yaml

EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def main():
    action = yaml.safe_load(open(sys.argv[1], encoding="utf-8"))
    given = json.load(open(sys.argv[2], encoding="utf-8"))
    steps = action["runs"]["steps"]
    assert action["runs"]["using"] == "composite", "not a composite action"
    for step in steps:
        if "run" in step and "${{" in step["run"]:
            print("run_action.py: step %r interpolates an expression into its run: script" % step.get("name"), file=sys.stderr)
            return 90
    inputs = {}
    for name, spec in action.get("inputs", {}).items():
        if name in given:
            inputs[name] = given[name]
        elif spec.get("required") and "default" not in spec:
            print("run_action.py: input %s is required" % name, file=sys.stderr)
            return 91
        else:
            inputs[name] = str(spec.get("default", ""))
    unknown = set(given) - set(inputs)
    if unknown:
        print("run_action.py: unknown inputs %s" % sorted(unknown), file=sys.stderr)
        return 91
    outputs = {}

    def evaluate(expression):
        if expression.startswith("inputs."):
            return inputs[expression[len("inputs."):]]
        if expression == "github.action_repository":
            return ""
        match = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expression)
        if match:
            return outputs.get(match.group(1), {}).get(match.group(2), "")
        raise SystemExit("run_action.py: unsupported expression ${{ %s }}" % expression)

    def substitute(text):
        return EXPRESSION.sub(lambda m: evaluate(m.group(1)), str(text))

    workspace = os.environ["GITHUB_WORKSPACE"]
    for step in steps:
        name = substitute(step.get("name", step.get("id", "?")))
        if "run" not in step:
            raise SystemExit("run_action.py: step %r is not a run: step" % name)
        if step.get("shell") != "bash":
            raise SystemExit("run_action.py: step %r: only shell: bash is modelled" % name)
        env = dict(os.environ)
        for key, value in (step.get("env") or {}).items():
            env[key] = substitute(value)
        path_file = os.environ["GITHUB_PATH"]
        if os.path.exists(path_file):
            added = [line for line in open(path_file, encoding="utf-8").read().splitlines() if line]
            env["PATH"] = os.pathsep.join(list(reversed(added)) + [env["PATH"]])
        output_file = os.environ["GITHUB_OUTPUT"]
        open(output_file, "w").close()
        cwd = os.path.join(workspace, substitute(step.get("working-directory", ".")))
        with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as script:
            script.write(substitute(step["run"]))
        try:
            code = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", script.name], cwd=cwd, env=env).returncode
        finally:
            os.unlink(script.name)
        step_outputs = {}
        for line in open(output_file, encoding="utf-8").read().splitlines():
            key, _, value = line.partition("=")
            step_outputs[key] = value
        if "id" in step:
            outputs[step["id"]] = step_outputs
        print("run_action.py: step %r: exit %d" % (name, code), file=sys.stderr)
        if code != 0:
            return code
    for name, spec in (action.get("outputs") or {}).items():
        print("output %s=%s" % (name, substitute(spec["value"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
