/* Block matching: the sum of absolute differences of a 16 x 16 block of 8-bit pixels against
 * every position of a search row of a frame (as video encoders' motion search does), the best
 * kept. */
#include <stdint.h>
#include <stdlib.h>
#include "common.h"
KERNEL static uint32_t kernel(const uint8_t *restrict frame, size_t width, const uint8_t *restrict block,
                              size_t positions)
{
    uint32_t best = UINT32_MAX;
    for (size_t x = 0; x < positions; x++) {
        uint32_t sad = 0;
        for (int r = 0; r < 16; r++)
            for (int c = 0; c < 16; c++)
                sad += (uint32_t)abs((int)frame[r * width + x + c] - (int)block[r * 16 + c]);
        if (sad < best)
            best = sad;
    }
    return best;
}
int main(int argc, char **argv)
{
    size_t width = arg_size(argc, argv, 1, 1024), reps = arg_size(argc, argv, 2, 1);
    if (width < 32) {
        fprintf(stderr, "%s: a width of 32 pixels or more\n", argv[0]);
        return 2;
    }
    uint8_t *frame = xmalloc(16 * width), block[256];
    uint64_t rng = 88172645463325252ull;
    for (size_t i = 0; i < 16 * width; i++) {
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
        frame[i] = (uint8_t)(rng >> 56);
    }
    for (int i = 0; i < 256; i++)
        block[i] = frame[(size_t)(i / 16) * width + width / 2 + (size_t)(i % 16)];
    uint32_t s = 0;
    double t = now();
    for (size_t r = 0; r < reps; r++)
        s += kernel(frame, width, block, width - 16);
    report(now() - t);
    sink = s;
    return 0;
}
