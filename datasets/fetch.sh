#!/usr/bin/env bash
# fetch.sh — download a well-known public graph, check its SHA-256 and decompress it.
#
#   datasets/fetch.sh [--strict] [--force] [--url URL] [--checksums FILE] NAME [DIR]
#   datasets/fetch.sh --list | --help
#
# Checksums live in datasets/checksums.sha256 ("<sha256>  <file name>", sha256sum's format). A file
# without an entry is downloaded anyway: the script prints its computed checksum and warns that it
# is unverified (--strict makes that an error). Only record a checksum you have checked against the
# publisher's; the file ships without entries because none could be checked when it was written.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$SCRIPT_DIR/.." && pwd)
CHECKSUMS="$SCRIPT_DIR/checksums.sha256"
DEFAULT_DIR="$REPO_DIR/bench-data" # ignored by git

# name | download URL | format after decompression | what it is
CATALOGUE=(
  "web-Google|https://snap.stanford.edu/data/web-Google.txt.gz|snap|SNAP web graph: 875,713 vertices, 5,105,039 directed edges"
  "roadNet-CA|https://snap.stanford.edu/data/roadNet-CA.txt.gz|snap|SNAP California road network: 1,965,206 vertices, 2,766,607 undirected edges"
  "soc-LiveJournal1|https://snap.stanford.edu/data/soc-LiveJournal1.txt.gz|snap|SNAP LiveJournal social network: 4,847,571 vertices, 68,993,773 directed edges"
  "com-Orkut|https://snap.stanford.edu/data/bigdata/communities/com-orkut.ungraph.txt.gz|snap|SNAP Orkut social network: 3,072,441 vertices, 117,185,083 undirected edges"
  "USA-road-d.NY|http://www.diag.uniroma1.it/challenge9/data/USA-road-d/USA-road-d.NY.gr.gz|dimacs|9th DIMACS challenge, New York roads (distances): 264,346 vertices, 733,846 arcs"
  "USA-road-d.USA|http://www.diag.uniroma1.it/challenge9/data/USA-road-d/USA-road-d.USA.gr.gz|dimacs|9th DIMACS challenge, full USA roads (distances): 23,947,347 vertices, 58,333,344 arcs"
  "GAP-road|https://sparse.tamu.edu/MM/GAP/GAP-road.tar.gz|mtx|SuiteSparse GAP benchmark road graph (USA roads, weighted) in Matrix Market"
  "GAP-kron|https://sparse.tamu.edu/MM/GAP/GAP-kron.tar.gz|mtx|SuiteSparse GAP benchmark Kronecker graph, scale 27 (very large: tens of GB)"
)

usage() {
  cat <<EOF
Usage: $(basename "$0") [options] NAME [DIR]
       $(basename "$0") --list | --help

Downloads the public graph NAME (see --list) with curl or wget into DIR (default:
$DEFAULT_DIR), verifies its SHA-256 against $CHECKSUMS
and decompresses it. A file already there is not downloaded again.

Options:
  --list             print the catalogue and exit
  --strict           fail when the checksum file has no entry for the download
  --force            download again even when the file is present
  --url URL          download from URL instead of the catalogue's address (a mirror)
  --checksums FILE   read checksums from FILE instead of the default
  -h, --help         this text

Exit status: 0 done; 1 usage or download error; 2 checksum mismatch; 3 unverified under --strict.
EOF
}

die() { echo "fetch.sh: $*" >&2; exit 1; }

list() {
  printf '%-18s %-7s %s\n' NAME FORMAT DESCRIPTION
  for entry in "${CATALOGUE[@]}"; do
    IFS='|' read -r name url format about <<<"$entry"
    printf '%-18s %-7s %s\n' "$name" "$format" "$about"
    printf '%-18s %-7s %s\n' "" "" "$url"
  done
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then shasum -a 256 "$1" | cut -d' ' -f1
  else die "neither sha256sum nor shasum is installed"
  fi
}

download() { # URL OUT
  if command -v curl >/dev/null 2>&1; then
    curl -fL --retry 3 --connect-timeout 30 -o "$2" "$1"
  elif command -v wget >/dev/null 2>&1; then
    wget --tries=3 -O "$2" "$1"
  else
    die "neither curl nor wget is installed"
  fi
}

strict=0 force=0 url_override="" args=()
while (($#)); do
  case "$1" in
    --list) list; exit 0 ;;
    -h|--help) usage; exit 0 ;;
    --strict) strict=1 ;;
    --force) force=1 ;;
    --url) (($# >= 2)) || die "--url needs a URL"; url_override=$2; shift ;;
    --checksums) (($# >= 2)) || die "--checksums needs a file"; CHECKSUMS=$2; shift ;;
    --) shift; args+=("$@"); break ;;
    -*) die "unknown option '$1' (try --help)" ;;
    *) args+=("$1") ;;
  esac
  shift
done
((${#args[@]} >= 1 && ${#args[@]} <= 2)) || { usage >&2; exit 1; }
NAME=${args[0]}
DIR=${args[1]:-$DEFAULT_DIR}

url="" format=""
for entry in "${CATALOGUE[@]}"; do
  IFS='|' read -r name u f _ <<<"$entry"
  if [[ "$name" == "$NAME" ]]; then url=$u format=$f; fi
done
[[ -n "$url" ]] || die "unknown dataset '$NAME'; known: $(for e in "${CATALOGUE[@]}"; do printf '%s ' "${e%%|*}"; done)"
if [[ -n "$url_override" ]]; then url=$url_override; fi

mkdir -p "$DIR" || die "cannot create directory '$DIR'"
archive_name=$(basename "${url%%\?*}")
archive="$DIR/$archive_name"

if [[ -f "$archive" && $force -eq 0 ]]; then
  echo "fetch.sh: $archive is already here (--force downloads it again)"
else
  echo "fetch.sh: downloading $url"
  download "$url" "$archive.part" || { rm -f "$archive.part"; die "download of $url failed"; }
  mv "$archive.part" "$archive"
fi

# Verify: the expected checksum is the entry whose file name is the archive's.
actual=$(sha256_of "$archive")
expected=""
if [[ -f "$CHECKSUMS" ]]; then
  expected=$(awk -v f="$archive_name" '$1 !~ /^#/ && NF >= 2 { n = $2; sub(/^\*/, "", n); if (n == f) { print $1; exit } }' "$CHECKSUMS")
fi
if [[ -n "$expected" ]]; then
  if [[ "${expected,,}" != "${actual,,}" ]]; then
    echo "fetch.sh: CHECKSUM MISMATCH for $archive" >&2
    echo "  expected $expected" >&2
    echo "  got      $actual" >&2
    mv "$archive" "$archive.bad"
    echo "  (kept as $archive.bad; nothing decompressed)" >&2
    exit 2
  fi
  echo "fetch.sh: sha256 verified ($actual)"
else
  echo "fetch.sh: WARNING: no checksum for $archive_name in $CHECKSUMS: the download is UNVERIFIED" >&2
  echo "  computed: $actual  $archive_name" >&2
  echo "  check it against the publisher before adding that line to the checksum file" >&2
  if ((strict)); then
    echo "fetch.sh: --strict: refusing an unverified file (left at $archive, not decompressed)" >&2
    exit 3
  fi
fi

# Decompress beside the archive (the archive is kept, so a re-run need not download again).
case "$archive_name" in
  *.tar.gz|*.tgz)
    tar -xzf "$archive" -C "$DIR"
    echo "fetch.sh: extracted $archive into $DIR ($format)" ;;
  *.gz)
    out="$DIR/${archive_name%.gz}"
    gzip -dc "$archive" >"$out.part" && mv "$out.part" "$out"
    echo "fetch.sh: $out ($format)" ;;
  *)
    echo "fetch.sh: $archive ($format)" ;;
esac
