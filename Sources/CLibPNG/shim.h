#ifndef CHECKOUTKIT_CLIBPNG_SHIM_H
#define CHECKOUTKIT_CLIBPNG_SHIM_H
// libpng's simplified API (png_image_*), used by the preview tests to read screenshot pixels.
#include <png.h>
#endif
