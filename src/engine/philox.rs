//! Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11), the
//! counter-based generator of the device's random operators and of PyTorch's CUDA/NPU
//! generators: a block of four 32-bit words is a pure function of a 64-bit key (the seed)
//! and a 128-bit counter, so any element of a random tensor can be computed on its own —
//! the same seed and offset give the same bits on any number of threads, in any order.
//!
//! Counters here are `(index, offset)`: the low 64 bits the position of a block within one
//! operator call, the high 64 bits the call's offset. Two calls whose offsets differ draw
//! disjoint blocks, whatever their sizes.

const M0: u32 = 0xD251_1F53;
const M1: u32 = 0xCD9E_8D57;
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

/// A generator key and call offset: the stream of one random operator call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Philox {
    pub seed: u64,
    pub offset: u64,
}

impl Philox {
    pub fn new(seed: u64, offset: u64) -> Philox {
        Philox { seed, offset }
    }

    /// The four words of block `index` (ten rounds).
    #[inline]
    pub fn block(&self, index: u64) -> [u32; 4] {
        let mut c = [
            index as u32,
            (index >> 32) as u32,
            self.offset as u32,
            (self.offset >> 32) as u32,
        ];
        let mut k = [self.seed as u32, (self.seed >> 32) as u32];
        for round in 0..10 {
            if round > 0 {
                k[0] = k[0].wrapping_add(W0);
                k[1] = k[1].wrapping_add(W1);
            }
            let p0 = (M0 as u64) * (c[0] as u64);
            let p1 = (M1 as u64) * (c[2] as u64);
            c = [
                ((p1 >> 32) as u32) ^ c[1] ^ k[0],
                p1 as u32,
                ((p0 >> 32) as u32) ^ c[3] ^ k[1],
                p0 as u32,
            ];
        }
        c
    }

    /// Word `i` of the stream of 32-bit words (block i / 4, lane i % 4).
    #[inline]
    pub fn word(&self, i: u64) -> u32 {
        self.block(i / 4)[(i % 4) as usize]
    }
}

/// Two words as a uniform double in [0, 1): the top 53 of their 64 bits.
#[inline]
pub fn unit_f64(hi: u32, lo: u32) -> f64 {
    let bits = ((hi as u64) << 32 | lo as u64) >> 11;
    bits as f64 * (1.0 / (1u64 << 53) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The known-answer vectors of the Random123 distribution (kat_vectors, philox4x32_10).
    #[test]
    fn philox_known_answers() {
        let zero = Philox::new(0, 0);
        assert_eq!(
            zero.block(0),
            [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]
        );
        let ones = Philox::new(u64::MAX, u64::MAX);
        let c = u64::MAX;
        assert_eq!(
            ones.block(c),
            [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd]
        );
        // key (0xa4093822, 0x299f31d0), counter (0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344)
        let pi = Philox::new(0x299f_31d0_a409_3822, 0x0370_7344_1319_8a2e);
        assert_eq!(
            pi.block(0x85a3_08d3_243f_6a88),
            [0xd16c_fe09, 0x94fd_cceb, 0x5001_e420, 0x2412_6ea1]
        );
    }
}
