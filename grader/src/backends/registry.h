// The one place a backend is chosen and made. A new backend is a folder under
// backends/ with its make_*_backend, its name in model/ (BackendKind), and
// one line here.
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "backends/backend.h"

namespace sg {

// `requested` is --backend: unset ("auto") takes the GPU when one is usable,
// else the CPU. Throws UsageError when the backend asked for cannot be used here.
std::unique_ptr<Backend> make_backend(std::optional<BackendKind> requested, const BackendSetup& setup);

// The one architecture the runner pieces in `runner_objects` were built for
// ("sm_90", from the `arch` file the Makefile writes beside them); empty when
// they were built for several, or the file is missing or holds anything else.
std::string runner_pieces_arch(const std::string& runner_objects);

}  // namespace sg
