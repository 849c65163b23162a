#!/usr/bin/env bash
# Installs what seedforge needs on a fresh Debian/Ubuntu machine, or says exactly what
# to install. Called by `make run` and `make test`; safe to run again (does nothing when
# everything is present). `--browser` (what `make test` passes) also wants Debian's
# `chromium`, which the browser test of the HTML report runs headless; `--valgrind` (what
# `make bench-instructions` passes) Debian's `valgrind`, which counts a run's instructions.
set -euo pipefail

want_browser=false
want_valgrind=false
for argument in "$@"; do
    case "$argument" in
    --browser) want_browser=true ;;
    --valgrind) want_valgrind=true ;;
    *)
        echo "bootstrap: unknown option $argument (known: --browser, --valgrind)" >&2
        exit 2
        ;;
    esac
done

missing_packages=()
command -v pkg-config >/dev/null 2>&1 || missing_packages+=(pkg-config)
# libxml2: HTML parsing and XPath for scraped pages; sqlite3: the SQLite dataset outputs.
if ! pkg-config --exists libxml-2.0 2>/dev/null; then missing_packages+=(libxml2-dev); fi
if ! pkg-config --exists sqlite3 2>/dev/null; then missing_packages+=(libsqlite3-dev); fi
# zlib: gzip-compressed dumps; OpenSSL's libcrypto: SHA-256 checksums.
if ! pkg-config --exists zlib 2>/dev/null; then missing_packages+=(zlib1g-dev); fi
if ! pkg-config --exists libcrypto 2>/dev/null; then missing_packages+=(libssl-dev); fi
# chromium: opens `seedforge report`'s HTML headless in the test suite (screenshot, DOM).
if $want_browser && ! command -v chromium >/dev/null 2>&1; then missing_packages+=(chromium); fi
# valgrind: callgrind's instruction counts of a run (`make bench-instructions`).
if $want_valgrind && ! command -v valgrind >/dev/null 2>&1; then missing_packages+=(valgrind); fi

if ((${#missing_packages[@]})); then
    if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
        echo "bootstrap: installing ${missing_packages[*]}" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "${missing_packages[@]}" >/dev/null
    else
        echo "bootstrap: missing system packages: ${missing_packages[*]}" >&2
        echo "bootstrap: install them with:  sudo apt-get install ${missing_packages[*]}" >&2
        # Only the browser missing, outside CI: the tests run and the browser test says it
        # is skipped. Under CI (CI set) it must run, so this is an error.
        if [[ "${missing_packages[*]}" == chromium && -z "${CI:-}" ]]; then
            echo "bootstrap: going on without chromium: the browser test of the HTML report will be skipped" >&2
        else
            exit 1
        fi
    fi
fi

if ! command -v swift >/dev/null 2>&1; then
    echo "bootstrap: the Swift toolchain (6.0 or later) is not on PATH; see https://www.swift.org/install/linux/" >&2
    exit 1
fi
