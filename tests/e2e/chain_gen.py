# chain_gen.py DIR N K SEED SPAN D0 D1 ... DN — a chain for tests/e2e/cli_chain*.sh (not a test
# itself): DIR/size ("N K"), DIR/matrix1 .. matrixN in the BCSR text format (blocks shuffled, a
# comment line, values in [1, SPAN) in 70% of a stored block's places inside the matrix, zeros in
# the overhang), each also as DIR/mI.mtx (integer Matrix Market), and DIR/expected.mtx: the
# product computed here in exact integers modulo 2^64, its non-zero entries row by row.
import os
import random
import sys

d, n, k, seed, span = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
dims = [int(x) for x in sys.argv[6:7 + n]]
assert len(dims) == n + 1, "give N + 1 dimensions"
rnd = random.Random(seed)
os.makedirs(d, exist_ok=True)
with open(os.path.join(d, "size"), "w") as f:
    f.write("%d %d\n" % (n, k))


def write_mtx(path, m):
    nz = [(i, j, v) for i, row in enumerate(m) for j, v in enumerate(row) if v]
    with open(path, "w") as f:
        f.write("%%%%MatrixMarket matrix coordinate integer general\n%d %d %d\n"
                % (len(m), len(m[0]), len(nz)))
        for i, j, v in nz:
            f.write("%d %d %d\n" % (i + 1, j + 1, v))


mats = []
for i in range(n):
    r, c = dims[i], dims[i + 1]
    m = [[0] * c for _ in range(r)]
    blocks = []
    for bi in range((r + k - 1) // k):
        for bj in range((c + k - 1) // k):
            if rnd.random() < 0.4:
                vals = []
                for t in range(k * k):
                    rr, cc = bi * k + t // k, bj * k + t % k
                    inside = rr < r and cc < c
                    v = rnd.randrange(1, span) if inside and rnd.random() < 0.7 else 0
                    if inside:
                        m[rr][cc] = v
                    vals.append(v)
                blocks.append((bi, bj, vals))
    rnd.shuffle(blocks)
    with open(os.path.join(d, "matrix%d" % (i + 1)), "w") as f:
        f.write("%% matrix %d of the chain\n%d %d %d\n" % (i + 1, r, c, len(blocks)))
        for bi, bj, vals in blocks:
            f.write("%d %d %s\n" % (bi, bj, " ".join(map(str, vals))))
    write_mtx(os.path.join(d, "m%d.mtx" % (i + 1)), m)
    mats.append(m)
p = mats[0]
for m in mats[1:]:
    p = [[sum(p[i][l] * m[l][j] for l in range(len(m))) % 2**64 for j in range(len(m[0]))]
         for i in range(len(p))]
write_mtx(os.path.join(d, "expected.mtx"), p)
