#ifndef CHECKOUTKIT_CLIBPNG_SHIM_H
#define CHECKOUTKIT_CLIBPNG_SHIM_H
// libpng's simplified API (png_image_*), used by the preview tests to read screenshot pixels and to write
// the picture of a difference.
#include <png.h>
#include <stdlib.h>
#include <string.h>

/// Reads a PNG file as 8-bit RGBA, row after row; returns NULL on failure (message in `error`, 64 bytes).
/// The caller frees the result with free().
static inline unsigned char *clibpng_read_rgba(const char *path, unsigned int *width, unsigned int *height, char *error) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&image, path)) {
        strncpy(error, image.message, 63);
        error[63] = 0;
        return NULL;
    }
    image.format = PNG_FORMAT_RGBA;
    unsigned char *buffer = malloc(PNG_IMAGE_SIZE(image));
    if (buffer == NULL) {
        png_image_free(&image);
        strncpy(error, "out of memory", 63);
        return NULL;
    }
    if (!png_image_finish_read(&image, NULL, buffer, 0, NULL)) {
        strncpy(error, image.message, 63);
        error[63] = 0;
        free(buffer);
        return NULL;
    }
    *width = image.width;
    *height = image.height;
    return buffer;
}

/// Writes 8-bit RGBA rows (`width` * 4 bytes each) as a PNG file; returns 0 on failure (message in `error`, 64 bytes).
static inline int clibpng_write_rgba(const char *path, unsigned int width, unsigned int height, const unsigned char *rgba,
                                     char *error) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = width;
    image.height = height;
    image.format = PNG_FORMAT_RGBA;
    if (!png_image_write_to_file(&image, path, 0, rgba, 0, NULL)) {
        strncpy(error, image.message, 63);
        error[63] = 0;
        return 0;
    }
    return 1;
}
#endif
