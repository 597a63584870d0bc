/* Look up random keys in an unbalanced binary search tree built by inserting random keys, one
 * malloc'ed node each: a chain of dependent pointer loads per query, scattered over the heap
 * in insertion order, with a data-dependent left/right choice and exit per level. */
#include <stdint.h>
#include "common.h"
struct node {
    uint64_t key;
    struct node *left, *right;
};
KERNEL static size_t kernel(const struct node *root, const uint64_t *restrict q, size_t nq)
{
    size_t found = 0;
    for (size_t i = 0; i < nq; i++) {
        uint64_t k = q[i];
        const struct node *p = root;
        while (p) {
            if (k == p->key) {
                found++;
                break;
            }
            p = k < p->key ? p->left : p->right;
        }
    }
    return found;
}
static struct node *insert(struct node *root, uint64_t key)
{
    struct node **link = &root;
    while (*link) {
        if (key == (*link)->key)
            return root; /* already present */
        link = key < (*link)->key ? &(*link)->left : &(*link)->right;
    }
    struct node *p = xmalloc(sizeof *p);
    p->key = key;
    p->left = p->right = NULL;
    *link = p;
    return root;
}
int main(int argc, char **argv)
{
    size_t n = arg_size(argc, argv, 1, 10000), reps = arg_size(argc, argv, 2, 1);
    size_t nq = 1 << 16;
    uint64_t *keys = xmalloc(n * sizeof *keys), *q = xmalloc(nq * sizeof *q);
    uint64_t rng = 88172645463325252ull;
    struct node *root = NULL;
    for (size_t i = 0; i < n; i++) {
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
        keys[i] = rng;
        root = insert(root, rng);
    }
    for (size_t i = 0; i < nq; i++) { /* half present, half (almost surely) absent */
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
        q[i] = (i & 1) ? keys[(rng >> 7) % n] : rng;
    }
    size_t s = 0;
    double t = now();
    for (size_t r = 0; r < reps; r++)
        s += kernel(root, q, nq);
    report(now() - t);
    sink = (double)s;
    return 0;
}
