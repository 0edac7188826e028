//! Byte searches tuned for the short fields of log lines: a template's
//! field is a few bytes to a few dozen, where a vector search costs more to
//! set up than the scan itself.
//!
//! In: a byte and a haystack. Out: the first offset of the byte.

/// The first `b` in `hay`: most fields are a few bytes long, so the first
/// 32 bytes are looked at eight at a time in a word (SWAR) before memchr's
/// vector search, which costs more to set up than these fields to scan.
pub fn find_byte(b: u8, hay: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let pattern = ONES * u64::from(b);
    // `rest` is always `hay` from `at` on.
    let mut at = 0;
    let mut rest = hay;
    while at < 32 {
        let Some((word, tail)) = rest.split_first_chunk::<8>() else {
            break;
        };
        let x = u64::from_le_bytes(*word) ^ pattern;
        // A zero byte in `x` is a match; the lowest flagged byte is the first.
        let found = x.wrapping_sub(ONES) & !x & HIGHS;
        if found != 0 {
            return Some(at + (found.trailing_zeros() / 8) as usize);
        }
        at += 8;
        rest = tail;
    }
    if at < 32 {
        return rest.iter().position(|&c| c == b).map(|i| i + at);
    }
    memchr::memchr(b, rest).map(|i| i + at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_byte_finds_the_first_at_every_offset() {
        for len in 0..80 {
            for at in 0..=len {
                let mut hay = vec![b'x'; len];
                if at < len {
                    hay[at] = b'"';
                    // A later one must not win.
                    if at + 3 < len {
                        hay[at + 3] = b'"';
                    }
                }
                let want = (at < len).then_some(at);
                assert_eq!(find_byte(b'"', &hay), want, "len {len} at {at}");
            }
        }
        // Bytes above 0x80 next to the match do not confuse the word trick.
        assert_eq!(find_byte(b' ', "é é".as_bytes()), Some(2));
        assert_eq!(find_byte(0x81, &[0x80, 0x01, 0x81]), Some(2));
    }
}
