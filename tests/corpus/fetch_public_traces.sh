#!/usr/bin/env bash
# Re-extracts the public HTA and TraceLens test traces listed in public_traces.txt (repo, commit,
# blob id, path) into a cache outside this repository (issue #34: goblin is checked on traces it
# did not make, without vendoring them). Each file is taken by its git blob id, so the cache holds
# exactly the bytes the list names whatever those repositories do later.
#
# usage: tests/corpus/fetch_public_traces.sh [CACHE_DIR] [GIT_DIR_OF_HTA] [GIT_DIR_OF_TRACELENS]
#   CACHE_DIR defaults to $GOBLIN_FOREIGN_TRACES or ../cache/foreign_traces beside the checkout
#   (where CMake's GOBLIN_FOREIGN_TRACES looks, like tests/fixtures). Without git
#   directories the two repositories are cloned (blobless) into CACHE_DIR/.git-src.
# The corpus test (tests/corpus/check_corpus.py, ctest corpus_public_traces) runs where the cache is.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${1:-${GOBLIN_FOREIGN_TRACES:-$here/../../../cache/foreign_traces}}"
declare -A gitdir
gitdir["facebookresearch/HolisticTraceAnalysis"]="${2:-}"
gitdir["AMD-AGI/TraceLens"]="${3:-}"
mkdir -p "$cache"
repo_dir() {  # a git directory holding the repository's objects
  local repo="$1" d="${gitdir[$1]:-}"
  if [[ -n "$d" ]]; then echo "$d"; return; fi
  d="$cache/.git-src/${repo//\//+}"
  if [[ ! -d "$d" ]]; then
    git clone --quiet --bare --filter=blob:none "https://github.com/$repo" "$d" >&2
  fi
  echo "$d"
}
n=0 missing=0
while read -r repo commit blob path; do
  [[ -z "$repo" || "$repo" == \#* ]] && continue
  out="$cache/${repo//\//+}/$path"
  if [[ -f "$out" ]] && [[ "$(git hash-object "$out")" == "$blob" ]]; then n=$((n + 1)); continue; fi
  d="$(repo_dir "$repo")"
  mkdir -p "$(dirname "$out")"
  if git --git-dir="$d" cat-file -p "$blob" > "$out.part" 2>/dev/null; then
    mv "$out.part" "$out"; n=$((n + 1))
  else
    rm -f "$out.part"; missing=$((missing + 1)); echo "missing: $repo $blob $path" >&2
  fi
done < "$here/public_traces.txt"
echo "$n traces in $cache ($missing missing)"
