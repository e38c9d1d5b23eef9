// Stand-in for the CUDA header of the same name on the CPU backend.
#pragma once
#include "cudacpu.h"
