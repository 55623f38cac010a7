// For Reveille's test suite only: reads two screenshots (PNG, through GdkPixbuf) and prints, as
// JSON, what one rectangle of the first holds and how it differs from the same rectangle of the
// second: {"pixels", "changed" (pixels whose colour differs by more than 24 in any channel),
// "colours" (distinct colours in the first), "dominant" (share of the most common colour),
// "matching" (pixels of the first within 6 in each channel of COLOUR, when given)}.
//
// Usage: gjs compare-region.js FIRST.png SECOND.png X Y WIDTH HEIGHT [#RRGGBB]

const { GdkPixbuf } = imports.gi;

const [first, second, ...rest] = ARGV;
const [x, y, width, height] = rest.slice(0, 4).map(n => parseInt(n, 10));
const target = rest[4] ? [1, 3, 5].map(i => parseInt(rest[4].substring(i, i + 2), 16)) : null;
const a = GdkPixbuf.Pixbuf.new_from_file(first);
const b = GdkPixbuf.Pixbuf.new_from_file(second);
if (a.get_width() !== b.get_width() || a.get_height() !== b.get_height())
    throw new Error(`the screenshots differ in size: ${a.get_width()}x${a.get_height()}, ${b.get_width()}x${b.get_height()}`);
const right = Math.min(x + width, a.get_width());
const bottom = Math.min(y + height, a.get_height());
const bytesA = a.get_pixels();
const bytesB = b.get_pixels();
const [strideA, strideB] = [a.get_rowstride(), b.get_rowstride()];
const [channelsA, channelsB] = [a.get_n_channels(), b.get_n_channels()];
const counts = new Map();
let pixels = 0;
let changed = 0;
let matching = 0;
for (let row = y; row < bottom; row++) {
    for (let column = x; column < right; column++) {
        const i = row * strideA + column * channelsA;
        const j = row * strideB + column * channelsB;
        const colour = (bytesA[i] << 16) | (bytesA[i + 1] << 8) | bytesA[i + 2];
        counts.set(colour, (counts.get(colour) ?? 0) + 1);
        pixels++;
        if (target && target.every((value, c) => Math.abs(bytesA[i + c] - value) <= 6))
            matching++;
        for (let c = 0; c < 3; c++) {
            if (Math.abs(bytesA[i + c] - bytesB[j + c]) > 24) {
                changed++;
                break;
            }
        }
    }
}
const dominant = pixels === 0 ? 0 : Math.max(...counts.values()) / pixels;
print(JSON.stringify({ pixels, changed, colours: counts.size, dominant, matching }));
