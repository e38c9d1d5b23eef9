// nvcc gives every non-static __device__ function a host-side stand-in, a
// global function whose whole body is `exit(1)` (host code can never call it).
// Those stand-ins must not count as symbols the student defines, nor their
// `exit` as a call the student makes. This recognises them from what
// compile_submission keeps: the host code nvcc generated (keep/*.cudafe1.cpp)
// and the object's relocations (built with -ffunction-sections, so every
// function has its own section).
#pragma once
#include <map>
#include <set>
#include <string>

namespace sg::build {

// Relocation targets per section of an object: ".text.F" -> {"exit", ...}.
// Targets are symbol or section names without their addend.
using Relocations = std::map<std::string, std::set<std::string>>;

// Parses `objdump -r` output.
Relocations parse_objdump_relocations(const std::string& text);

// Runs objdump -r on the object; false (and `error`) when it cannot.
bool read_relocations(const std::string& objdump, const std::string& object, Relocations& out,
                      std::string& error);

// Plain names (e.g. "twice") of the functions whose body nvcc replaced by its
// `{int volatile ___ = 1; ... ::exit(___);}` stand-in, from generated host code.
std::set<std::string> stub_names_in_generated_code(const std::string& cudafe_text);

// The same from every keep/*.cudafe1.cpp next to the object ("" folder: none).
std::set<std::string> stub_names_beside(const std::string& object);

// Defined functions (mangled) that are such stand-ins: the name is a stub
// name, the function's own section references `exit` and nothing else, and
// nothing else in the object refers to the function.
std::set<std::string> recognised_device_stubs(const std::set<std::string>& defined,
                                              const std::set<std::string>& stub_names,
                                              const Relocations& relocations);

// True when every reference to `symbol` in the object comes from the
// sections of the given functions.
bool referenced_only_from(const std::string& symbol, const std::set<std::string>& functions,
                          const Relocations& relocations);

}  // namespace sg::build
