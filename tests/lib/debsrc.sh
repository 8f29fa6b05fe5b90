# debsrc.sh: fetch a Debian source package once and keep it under build/ (sourced by
# bench and test scripts that build real open-source programs; never committed).
#
#   . tests/lib/debsrc.sh
#   dir=$(debsrc_fetch sqlite3) || exit 1     # build/debsrc/sqlite3/sqlite3-3.40.1
#   (the one directory dpkg-source made: zstd's is libzstd-1.5.4+dfsg2)
#
# The first call adds a deb-src line beside each deb line of apt's sources (deb822
# files get "Types: deb deb-src"; one-line files a "deb-src" copy of each "deb" line),
# runs apt-get update once, and `apt-get source --download-only` (apt's candidate, or
# the newest version whose files the mirror has) plus dpkg-source -x
# (the Debian patches applied) into build/debsrc/PKG/. Later calls print the cached
# directory at once. Needs root for the sources change, like `make deps`.
# DEBSRC_DIR overrides the cache (default $ROOT/build/debsrc, or build/debsrc).

debsrc_root() { echo "${DEBSRC_DIR:-${ROOT:-.}/build/debsrc}"; }

# Is there a deb-src entry already?
debsrc_enabled() {
	grep -qsE '^[[:space:]]*deb-src[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list ||
		grep -qsE '^Types:.*deb-src' /etc/apt/sources.list.d/*.sources
}

debsrc_enable() {
	debsrc_enabled && return 0
	if [ "$(id -u)" != 0 ]; then
		echo "debsrc: no deb-src line in apt's sources and not root to add one" >&2
		return 1
	fi
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -e "$f" ] || continue
		sed -i -E 's/^Types:[[:space:]]*deb[[:space:]]*$/Types: deb deb-src/' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -e "$f" ] || continue
		grep -qE '^[[:space:]]*deb[[:space:]]' "$f" || continue
		sed -n -E 's/^[[:space:]]*deb([[:space:]])/deb-src\1/p' "$f" >>"$f"
	done
	apt-get update -qq >/dev/null 2>&1 || { echo "debsrc: apt-get update failed" >&2; return 1; }
	debsrc_enabled || { echo "debsrc: could not add a deb-src line" >&2; return 1; }
}

# The unpacked source under TOP: the directory holding debian/ (a caller may keep
# build directories of its own beside it).
debsrc_dir() {
	local d
	d=$(find "$1" -mindepth 2 -maxdepth 2 -type d -name debian 2>/dev/null | head -n 1)
	[ -n "$d" ] && dirname "$d"
}

# The source versions of PKG apt knows, newest first (dpkg's order: epochs count).
debsrc_versions() {
	local v sorted=() i
	for v in $(apt-cache showsrc "$1" 2>/dev/null | sed -n 's/^Version: *//p' | sort -u); do
		i=${#sorted[@]}
		sorted+=("$v")
		while [ "$i" -gt 0 ] && dpkg --compare-versions "$v" gt "${sorted[$((i - 1))]}"; do
			sorted[$i]=${sorted[$((i - 1))]}
			i=$((i - 1))
		done
		sorted[$i]=$v
	done
	[ ${#sorted[@]} -eq 0 ] || printf '%s\n' "${sorted[@]}"
}

# debsrc_fetch PKG: print the unpacked source directory of PKG (cached).
debsrc_fetch() {
	local pkg=$1 top dir
	top=$(debsrc_root)/$pkg
	dir=$(debsrc_dir "$top")
	if [ -n "$dir" ] && [ -e "$top/.done" ]; then
		echo "$dir"
		return 0
	fi
	command -v dpkg-source >/dev/null || { echo "debsrc: dpkg-source missing (dpkg-dev)" >&2; return 1; }
	debsrc_enable || return 1
	rm -rf "$top" && mkdir -p "$top" || return 1
	# apt's candidate first; when its files are missing from the mirror (a security
	# update's source not mirrored: 404), each version apt knows, newest first.
	local ver got=""
	for ver in "" $(debsrc_versions "$pkg"); do
		rm -f "$top"/*.dsc "$top"/*.tar.* "$top"/*.diff.gz
		if (cd "$top" && apt-get source -qq --download-only "$pkg${ver:+=$ver}" >>download.log 2>&1); then
			got=${ver:-candidate}
			break
		fi
	done
	if [ -z "$got" ]; then
		echo "debsrc: apt-get source $pkg failed: $(grep '^E:' "$top/download.log" | head -n 1)" >&2
		return 1
	fi
	local dsc
	dsc=$(ls "$top"/*.dsc 2>/dev/null | head -n 1)
	[ -n "$dsc" ] || { echo "debsrc: no .dsc for $pkg" >&2; return 1; }
	if ! (cd "$top" && dpkg-source --no-check -x "$(basename "$dsc")" >unpack.log 2>&1); then
		echo "debsrc: dpkg-source -x $pkg failed: $(tail -n 1 "$top/unpack.log")" >&2
		return 1
	fi
	dir=$(debsrc_dir "$top")
	[ -n "$dir" ] || { echo "debsrc: $pkg unpacked nowhere" >&2; return 1; }
	echo "$got" >"$top/.done" # the version fetched, or "candidate"
	echo "$dir"
}
