#!/usr/bin/env bash
# Lists the functions in src/, api/ and cmd/ longer than a limit (80 lines by default) that
# do not say why: a function may be longer when the line just above it (or
# its signature) carries a comment "NOLINTNEXTLINE(readability-function-size):
# <reason>" (the clang-tidy check of the same name honours it too).
# A brace-counting scan, not a parser: strings, character literals, raw
# strings and comments are skipped; a brace block whose header has a '(' at
# namespace or class level is a function (lambdas count with their function).
# Exit status 1 when a function is too long without a reason.
#   hack/long-functions.sh [-n LIMIT] [FILE...]   (default: {src,api,cmd}/**/*.cc, *.h)
set -euo pipefail
limit=80
if [[ "${1:-}" == "-n" ]]; then limit="$2"; shift 2; fi
cd "$(dirname "$0")/.."
if [[ $# -eq 0 ]]; then
  mapfile -t files < <(find src api cmd -name '*.cc' -o -name '*.h' | sort)
else
  files=("$@")
fi
awk -v limit="$limit" '
function classify(h) {
  if (h ~ /^[ \t]*(namespace|extern)([ \t]|$)/ || h ~ /^[ \t]*namespace/) return "ns"
  if (h ~ /(^|[^A-Za-z0-9_])(class|struct|union|enum)[ \t][^(]*$/) return "class"
  if (index(h, "(") > 0 && h !~ /=[ \t]*$/ && h !~ /^[ \t]*(if|for|while|switch|do|else|try|catch)([ \t(]|$)/) return "fn"
  return "other"
}
function name_of(h,   s, i) {
  s = h; i = index(s, "(")
  if (i > 0) s = substr(s, 1, i - 1)
  gsub(/[ \t]+$/, "", s)
  n = split(s, parts, /[ \t*&]+/)
  return parts[n]
}
FNR == 1 { depth = 0; parens = 0; lastc = ""; hdr = ""; hdr_line = 0; in_block = 0; in_raw = 0; delete kind; delete start; delete reason_ok; prev = ""; prev2 = "" }
{
  line = $0
  if (!in_block && !in_raw && line ~ /^[ \t]*#/) { prev2 = prev; prev = line; next }
  L = length(line); i = 1
  while (i <= L) {
    c = substr(line, i, 1)
    if (in_block) { if (substr(line, i, 2) == "*/") { in_block = 0; i += 2 } else i++; continue }
    if (in_raw) { j = index(substr(line, i), raw_end); if (j == 0) { i = L + 1 } else { in_raw = 0; i += j - 1 + length(raw_end) }; continue }
    two = substr(line, i, 2)
    if (two == "//") break
    if (two == "/*") { in_block = 1; i += 2; continue }
    if (two == "R\"") {
      rest = substr(line, i + 2); p = index(rest, "(")
      raw_end = ")" substr(rest, 1, p - 1) "\""
      in_raw = 1; i += 2 + p; continue
    }
    if (c == "\"" || c == "\x27") {
      q = c; i++
      while (i <= L) { d = substr(line, i, 1); if (d == "\\") { i += 2; continue }; i++; if (d == q) break }
      hdr = hdr " S "; continue
    }
    if (c == "{") {
      if (depth == 0 || kind[depth] == "ns" || kind[depth] == "class") k = classify(hdr); else k = "blk"
      # A brace inside parentheses, or a member initialiser `name_{...}` of a
      # constructor, is part of the signature, not a body.
      if (k == "fn" && (parens > 0 || (hdr ~ /\)[ \t]*:[^:]/ && lastc ~ /[A-Za-z0-9_>]/))) {
        depth++; kind[depth] = "init"; hdr = hdr c; i++; continue
      }
      depth++; kind[depth] = k
      if (k == "fn") {
        start[depth] = hdr_line; fname[depth] = name_of(hdr)
        reason_ok[depth] = (sig_prev ~ /NOLINTNEXTLINE\(readability-function-size\):[ \t]*[^ \t]/ || hdr_raw ~ /readability-function-size\):/)
      }
      hdr = ""; hdr_line = 0; parens = 0; i++; continue
    }
    if (c == "}" && depth > 0 && kind[depth] == "init") { depth--; hdr = hdr c; lastc = c; i++; continue }
    if (c == "}") {
      if (depth > 0) {
        if (kind[depth] == "fn") {
          len = FNR - start[depth] + 1
          if (len > limit) {
            printf "%s:%d: %s is %d lines (limit %d)%s\n", FILENAME, start[depth], fname[depth], len, limit, reason_ok[depth] ? " [reason given]" : ""
            if (!reason_ok[depth]) bad++
          }
        }
        depth--
      }
      hdr = ""; hdr_line = 0; parens = 0; i++; continue
    }
    if (c == ";") { hdr = ""; hdr_line = 0; parens = 0; i++; continue }
    if (c == "(") parens++
    if (c == ")" && parens > 0) parens--
    if (c !~ /[ \t]/) lastc = c
    if (c !~ /[ \t]/ && hdr_line == 0) { hdr_line = FNR; sig_prev = prev; hdr_raw = line }
    hdr = hdr c; i++
  }
  hdr = hdr " "
  prev2 = prev; prev = line
}
END { exit bad > 0 ? 1 : 0 }
' "${files[@]}"
