// Leaving metadata.managedFields out of a watch event before it is parsed.
// The field is a third to a half of the JSON of a typical object (every
// field each manager set, as nested "f:" keys), and a cache drops it after
// parsing anyway (runtime::StripManagedFields); cutting it out of the text
// first saves the parse and the allocations of that part.
//
// The scan knows JSON strings (with escapes) and nesting and nothing more: it
// finds the member "managedFields" of the event's object.metadata only at
// that place, never a key of that name elsewhere (in data, spec or a string),
// and leaves a line it does not understand unchanged for the parser to judge.
// Pure functions; thread-safe.
#ifndef QUORUM_SRC_KUBE_MANAGED_FIELDS_H_
#define QUORUM_SRC_KUBE_MANAGED_FIELDS_H_

#include <string>
#include <string_view>

namespace quorum::kube {

// `line` (one watch event: {"type":..,"object":{..}}) without the member
// "managedFields" of object.metadata and one comma next to it: a view of
// `line` itself when there is none, else of `scratch`.
std::string_view WithoutManagedFields(std::string_view line, std::string& scratch);

}  // namespace quorum::kube

#endif  // QUORUM_SRC_KUBE_MANAGED_FIELDS_H_
