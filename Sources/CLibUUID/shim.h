#ifndef CHECKOUTKIT_CLIBUUID_SHIM_H
#define CHECKOUTKIT_CLIBUUID_SHIM_H
#include <uuid/uuid.h>
#endif
