AXES = {
    (1, 0, 0): ((0, 1, 0), (0, 0, 1)), (-1, 0, 0): ((0, 0, 1), (0, 1, 0)),
    (0, 1, 0): ((0, 0, 1), (1, 0, 0)), (0, -1, 0): ((1, 0, 0), (0, 0, 1)),
    (0, 0, 1): ((1, 0, 0), (0, 1, 0)), (0, 0, -1): ((0, 1, 0), (1, 0, 0)),
}
def pt(p): return "( %d %d %d )" % p
def box(mins, maxs, tex):
    out = "{\n"
    for n in sorted(AXES):
        a, b = AXES[n]
        p1 = tuple(maxs[k] if n[k] > 0 else mins[k] for k in range(3))
        p0 = tuple(p + d for p, d in zip(p1, a)); p2 = tuple(p + d for p, d in zip(p1, b))
        out += "%s %s %s %s 0 0 0 1 1\n" % (pt(p0), pt(p1), pt(p2), tex)
    return out + "}\n"
T = 16
lo, hi = (-512, -256, 0), (512, 256, 256)
b = ""
for ax in range(3):
    for s in (0, 1):
        mn = [lo[k] - T for k in range(3)]; mx = [hi[k] + T for k in range(3)]
        if s == 0: mx[ax] = lo[ax]
        else: mn[ax] = hi[ax]
        b += box(tuple(mn), tuple(mx), "e1u1/floor1_3" if ax == 2 and s == 0 else "e1u1/wall1_2")
# a divider at x = -192 from the south wall to y = 160: the west end is lit only round its end
b += box((-208, -256, 0), (-192, 160, 256), "e1u1/wall1_2")
# a pillar in the lit part, for a sharp shadow on the floor
b += box((160, -24, 0), (208, 24, 192), "e1u1/wall1_2")
m = '// Test map for qrad BSPX output (q2map project, same licence as the code)\n'
m += '{\n"classname" "worldspawn"\n' + b + '}\n'
m += '{\n"classname" "info_player_start"\n"origin" "320 0 32"\n}\n'
m += '{\n"classname" "light"\n"origin" "352 64 160"\n"light" "60"\n"delay" "3"\n}\n'
m += '{\n"classname" "light"\n"origin" "32 -160 200"\n"light" "250"\n"style" "1"\n}\n'
open("bspx_room.map", "w").write(m)
