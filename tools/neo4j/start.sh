#!/usr/bin/env bash
# Start a real Neo4j 5.26 (embedded, community) with Bolt on 127.0.0.1.
#   NEO4J_PASSWORD=... tools/neo4j/start.sh [--port N] [--data DIR] [--ignore-stdin]
#   tools/neo4j/start.sh --password-file FILE [--port N] [--data DIR] [--ignore-stdin]
#   ... --profile load   (or KG_NEO4J_PROFILE=load): the JVM flags of jvm-load.flags (heap, full
#   JIT, page cache for big loads) instead of jvm-test.flags (fast start, small footprint).
# The password of user neo4j comes from $NEO4J_PASSWORD or a file only its owner can read,
# never from the command line (see Launcher.java).
# Prints one line "BOLT bolt://127.0.0.1:PORT" on stdout when ready (logs go to stderr).
# Stops on SIGTERM/SIGINT or when its stdin is closed (give it a pipe; stdin=/dev/null
# means "stop at once" unless --ignore-stdin is passed).
# First run fetches the jars (~123 MB) from Maven Central into tools/neo4j/lib/.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"

version="$(sed -n 's|.*<neo4j.version>\(.*\)</neo4j.version>.*|\1|p' "$here/pom.xml")"
if [ ! -f "$here/lib/neo4j-$version.jar" ]; then
    echo "kg-neo4j: fetching Neo4j $version jars into $here/lib" >&2
    rm -rf "$here/lib"
    # mvn's stdout must not pollute ours (the parent parses it): send it to stderr.
    # Offline first (works from a populated ~/.m2 without network), then online.
    mvn -q -B -o -f "$here/pom.xml" package >/dev/null 2>&1 \
        || mvn -q -B -f "$here/pom.xml" package 1>&2
fi

profile="${KG_NEO4J_PROFILE:-test}"
args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --profile) [ $# -ge 2 ] || { echo "kg-neo4j: --profile needs a name" >&2; exit 2; }
                   profile="$2"; shift 2 ;;
        *) args+=("$1"); shift ;;
    esac
done
if [[ ! "$profile" =~ ^[a-z0-9-]+$ ]] || [ ! -f "$here/jvm-$profile.flags" ]; then
    echo "kg-neo4j: no profile $profile (tools/neo4j/jvm-$profile.flags): use test or load" >&2
    exit 2
fi
mapfile -t flags < <(cat "$here/jvm.flags" "$here/jvm-$profile.flags" | grep -v '^[[:space:]]*\(#\|$\)')
exec "$java" "${flags[@]}" -cp "$here/lib/*" "$here/Launcher.java" "${args[@]}"
