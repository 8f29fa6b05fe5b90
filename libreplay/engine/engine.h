/* proto shim */
#include "rp_impl.h"
