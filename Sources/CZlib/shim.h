#include <zlib.h>

// inflateInit2 is a macro; Swift sees only the function it expands to.
static inline int czlib_inflate_init_gzip(z_streamp stream) {
    return inflateInit2(stream, 16 + MAX_WBITS);
}
