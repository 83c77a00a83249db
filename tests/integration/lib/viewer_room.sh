# Sourced by the qview watch tests: writes small sealed maps to edit.
#   viewer_room Y [leak] > FILE.map
# A 512x512x256 box room (texture "wall"), a player start at (-200 0 64)
# facing +X, a light under the ceiling and a 64x64x128 pillar (texture
# "pillar") centred at (32, Y); "leak" leaves the +X wall out.
viewer_room() {
    local y=$1 leak=${2:-}
    _vr_brush() { # x0 y0 z0 x1 y1 z1 texture
        local t=$7
        echo "{"
        echo "( $1 $2 $3 ) ( $1 $5 $3 ) ( $1 $2 $6 ) $t 0 0 0 1 1"
        echo "( $4 $2 $3 ) ( $4 $2 $6 ) ( $4 $5 $3 ) $t 0 0 0 1 1"
        echo "( $1 $2 $3 ) ( $1 $2 $6 ) ( $4 $2 $3 ) $t 0 0 0 1 1"
        echo "( $1 $5 $3 ) ( $4 $5 $3 ) ( $1 $5 $6 ) $t 0 0 0 1 1"
        echo "( $1 $2 $3 ) ( $4 $2 $3 ) ( $1 $5 $3 ) $t 0 0 0 1 1"
        echo "( $1 $2 $6 ) ( $1 $5 $6 ) ( $4 $2 $6 ) $t 0 0 0 1 1"
        echo "}"
    }
    echo "{"
    echo '"classname" "worldspawn"'
    _vr_brush -256 -256 -16 256 256 0 wall
    _vr_brush -256 -256 256 256 256 272 wall
    _vr_brush -272 -256 0 -256 256 256 wall
    [ "$leak" = leak ] || _vr_brush 256 -256 0 272 256 256 wall
    _vr_brush -256 -272 0 256 -256 256 wall
    _vr_brush -256 256 0 256 272 256 wall
    _vr_brush 0 $((y - 32)) 0 64 $((y + 32)) 128 pillar
    echo "}"
    echo '{ "classname" "info_player_start" "origin" "-200 0 64" "angle" "0" }'
    echo '{ "classname" "light" "origin" "0 0 200" "light" "400" }'
}

# The same room cut off inside a brush: a syntax error on its last line.
viewer_room_broken() {
    viewer_room 0 | sed -n 1,8p
    echo "( 1 2 3 ) ( 4"
}

# Replaces FILE with what stdin gives, in one rename, as editors save.
viewer_save() {
    cat >"$1.saving" && mv -f "$1.saving" "$1"
}
