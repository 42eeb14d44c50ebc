# Strips the code-generation options from one of etcd's .proto files (stdin to
# stdout): the gogoproto, google.api.http, openapiv2 and versionpb imports,
# `option (...)` statements (multi-line `{...}` ones too) and `[(...) = ...]`
# field options of those; every other line, comments included, unchanged.
function dropped(opt) {
  sub(/^[ \t]+/, "", opt)
  return opt ~ /^\((gogoproto|google\.api|grpc\.gateway|versionpb)/
}
# `a, b` split at commas outside double quotes into parts[1..n]; returns n.
function split_top(text, parts,    n, i, ch, cur, quoted) {
  n = 0; cur = ""; quoted = 0
  for (i = 1; i <= length(text); i++) {
    ch = substr(text, i, 1)
    if (ch == "\"") quoted = !quoted
    if (ch == "," && !quoted) { parts[++n] = cur; cur = "" } else cur = cur ch
  }
  parts[++n] = cur
  return n
}
function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
function strip_field_options(line,    out, pre, inner, parts, n, i, kept) {
  out = ""
  while (match(line, /[ \t]*\[[^\]]*\]/)) {
    pre = substr(line, 1, RSTART - 1)
    inner = substr(line, RSTART, RLENGTH)
    sub(/^[ \t]*\[/, "", inner); sub(/\]$/, "", inner)
    line = substr(line, RSTART + RLENGTH)
    n = split_top(inner, parts); kept = ""
    for (i = 1; i <= n; i++) {
      if (dropped(parts[i])) continue
      kept = kept (kept == "" ? "" : ", ") trim(parts[i])
    }
    out = out pre (kept == "" ? "" : " [" kept "]")
  }
  return out line
}
skipping {
  t = $0; depth += gsub(/\{/, "{", t) - gsub(/\}/, "}", t)
  if (depth == 0 && $0 ~ /;[ \t]*$/) skipping = 0
  next
}
/^[ \t]*import[ \t]+"(gogoproto\/|google\/api\/|protoc-gen-openapiv2\/|etcd\/api\/versionpb\/)/ { next }
/^[ \t]*option[ \t]+\(/ {
  o = $0; sub(/^[ \t]*option[ \t]+/, "", o)
  if (dropped(o)) {
    t = $0; depth = gsub(/\{/, "{", t) - gsub(/\}/, "}", t)
    if (!(depth == 0 && $0 ~ /;[ \t]*$/)) skipping = 1
    next
  }
}
{ print strip_field_options($0) }
