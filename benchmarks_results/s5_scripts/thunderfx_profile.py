import cProfile, pstats, torch, thunder, thunder.fastpath
from thunder.dynamo import thunderfx
def two(a, b):
    return a * b + a
a, b = torch.randn(8, 8), torch.randn(8, 8)
c = thunderfx(two, fastpath=True)
for _ in range(5): c(a, b)
p = cProfile.Profile()
p.runcall(lambda: [c(a, b) for _ in range(2000)])
st = pstats.Stats(p); st.sort_stats("tottime").print_stats(14); st.sort_stats("cumtime").print_stats(22)
