// Pieces every resource webhook shares: which requests carry an object to
// default or validate, and the object's name for messages.
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_WEBHOOKS_ADMISSION_OBJECT_H_
#define QUORUM_SRC_WEBHOOKS_ADMISSION_OBJECT_H_

#include <string>

#include "src/runtime/admission.h"

namespace quorum::webhooks {

// CREATE or UPDATE of the resource itself (not of a subresource such as
// status): the requests that defaulting and validation look at.
bool IsObjectWrite(const runtime::AdmissionRequest& request);

// The request's name, else the object's metadata.name or generateName; ""
// when none is there.
std::string ObjectName(const runtime::AdmissionRequest& request);

}  // namespace quorum::webhooks

#endif  // QUORUM_SRC_WEBHOOKS_ADMISSION_OBJECT_H_
