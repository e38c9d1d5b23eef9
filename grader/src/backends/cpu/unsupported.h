// What the CPU backend cannot run, so the rewriter can say so with the line
// instead of leaving the student with a host compiler error (or worse, a
// kernel that compiles and silently means something else).
#pragma once
#include <string>

namespace sg {

// True when identifier `name` names a construct the CPU backend lacks:
// warp-level intrinsics, atomics of block or system scope, inline PTX, textures
// and surfaces, cooperative groups, tensor-core and async-copy APIs, and the
// runtime calls the layer does not offer. `next` is the text of the token
// after it (`texture` is only a construct before `<`).
bool unsupported_identifier(const std::string& name, const std::string& next);

// True when an #include of `header` brings in a library the layer cannot stand in for.
bool unsupported_header(const std::string& header);

}  // namespace sg
