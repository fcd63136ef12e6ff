# SNAP-style edge list whose weights turn float on the last line
0 1 3
0 2 1
1 3 4
2 3 1
2 5 6
3 4 5
4 5 9
5 0 2.5
