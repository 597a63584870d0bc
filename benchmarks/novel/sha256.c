/* SHA-256's compression function over n 64-byte blocks: 64 rounds of 32-bit rotates, shifts,
 * xors, ands and adds per block, each round waiting for the one before (integer work, no data
 * beyond the block and the constants). */
#include <stdint.h>
#include "common.h"
static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
KERNEL static void kernel(uint32_t *restrict h, const uint32_t *restrict data, size_t blocks)
{
    for (size_t b = 0; b < blocks; b++) {
        uint32_t w[64], s[8];
        for (int t = 0; t < 16; t++)
            w[t] = data[16 * b + t];
        for (int t = 16; t < 64; t++) {
            uint32_t s0 = ROR(w[t - 15], 7) ^ ROR(w[t - 15], 18) ^ (w[t - 15] >> 3);
            uint32_t s1 = ROR(w[t - 2], 17) ^ ROR(w[t - 2], 19) ^ (w[t - 2] >> 10);
            w[t] = w[t - 16] + s0 + w[t - 7] + s1;
        }
        for (int i = 0; i < 8; i++)
            s[i] = h[i];
        for (int t = 0; t < 64; t++) {
            uint32_t e = s[4], a = s[0];
            uint32_t t1 = s[7] + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & s[5]) ^ (~e & s[6]))
                          + K[t] + w[t];
            uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & s[1]) ^ (a & s[2]) ^ (s[1] & s[2]));
            s[7] = s[6]; s[6] = s[5]; s[5] = e; s[4] = s[3] + t1;
            s[3] = s[2]; s[2] = s[1]; s[1] = a; s[0] = t1 + t2;
        }
        for (int i = 0; i < 8; i++)
            h[i] += s[i];
    }
}
int main(int argc, char **argv)
{
    size_t blocks = arg_size(argc, argv, 1, 10000), reps = arg_size(argc, argv, 2, 1);
    uint32_t *data = xmalloc(blocks * 64), h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                                    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    for (size_t i = 0; i < blocks * 16; i++)
        data[i] = (uint32_t)(i * 2654435761u);
    double t = now();
    for (size_t r = 0; r < reps; r++)
        kernel(h, data, blocks);
    report(now() - t);
    sink = h[0] ^ h[7];
    return 0;
}
