#!/bin/sh
# Extract every option name (and alias) from a fio source tree: the general table
# `fio_options[]` in options.c and every engine table (`struct fio_option ...[] = {` in
# engines/*.c, plus the CMDPRIO_OPTIONS macro in engines/cmdprio.h).
#
# Usage:
#   crates/job/tools/fio_option_names.sh /path/to/fio-checkout > crates/job/tests/data/fio_option_names.txt
# or, from a bare mirror:
#   git -C fio.git archive f5344384 options.c engines | tar -x -C /tmp/fio && \
#     crates/job/tools/fio_option_names.sh /tmp/fio
#
# Output: one line per name, sorted, `name<TAB>file[,file...]` (the files defining it).
# The registry test (crates/job/tests/it/registry.rs) asserts that every name resolves.
set -eu
src=${1:?usage: fio_option_names.sh FIO_SOURCE_DIR}
[ -f "$src/options.c" ] || { echo "fio_option_names.sh: $src/options.c not found" >&2; exit 1; }

extract() {
	# $1: file, relative to $src. Prints `name<TAB>file` for .name/.alias inside option tables.
	awk -v f="$1" '
		/struct fio_option[ \t]+[A-Za-z_0-9]+[ \t]*\[[^]]*\][ \t]*=/ { inopt = 1 }
		/#define[ \t]+CMDPRIO_OPTIONS/ { inopt = 1 }
		inopt && /^[ \t]*\.(name|alias)[ \t]*=[ \t]*"/ {
			s = $0; sub(/^[^"]*"/, "", s); sub(/".*$/, "", s)
			if (s != "") print s "\t" f
		}
		inopt && /^};/ { inopt = 0 }
	' "$src/$1"
}

{
	extract options.c
	for f in "$src"/engines/*.c "$src"/engines/cmdprio.h; do
		extract "engines/$(basename "$f")"
	done
} | sort -u | awk -F'\t' '
	$1 == prev { files = files "," $2; next }
	{ if (prev != "") print prev "\t" files; prev = $1; files = $2 }
	END { if (prev != "") print prev "\t" files }
'
