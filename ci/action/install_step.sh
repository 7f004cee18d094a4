#!/usr/bin/env bash
# ci/action/install_step.sh — the install step of the turnstile GitHub Action (action.yml):
# installs release $TURNSTILE_VERSION into $RUNNER_TEMP/turnstile with ci/install.sh and puts its
# bin/ on the job's PATH ($GITHUB_PATH). The release comes from $TURNSTILE_REPOSITORY (OWNER/NAME)
# when set, else from the repository the action itself was taken from: `uses: OWNER/NAME/ci/
# action@REF` is checked out at .../_actions/OWNER/NAME/REF/ci/action ($GITHUB_ACTION_PATH; a
# composite action's github.action_repository is empty), or, for `uses: ./ci/action`, the
# workflow's own repository ($GITHUB_REPOSITORY).
set -euo pipefail
: "${TURNSTILE_VERSION:?the version input is required}"
repository=${TURNSTILE_REPOSITORY:-}
if [ -z "$repository" ]; then
    case "$GITHUB_ACTION_PATH" in
        */_actions/*/*/*) repository=$(cut -d/ -f1,2 <<<"${GITHUB_ACTION_PATH##*/_actions/}") ;;
        "${GITHUB_WORKSPACE:-/nonexistent}"/*) repository=${GITHUB_REPOSITORY:-} ;;
    esac
fi
if ! [[ "$repository" =~ ^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+$ ]]; then
    echo "turnstile action: cannot tell the repository to install from ('$repository'): set the repository input (OWNER/NAME)" >&2
    exit 2
fi
TURNSTILE_REPOSITORY=$repository "$GITHUB_ACTION_PATH/../install.sh" "$TURNSTILE_VERSION" "$RUNNER_TEMP/turnstile"
echo "$RUNNER_TEMP/turnstile/bin" >>"$GITHUB_PATH"
