// TEST DOUBLE: see ATen/record_function.h beside this folder.
#pragma once
