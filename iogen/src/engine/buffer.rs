//! Slot buffers: heap memory aligned for `O_DIRECT`, filled with non-zero bytes so that writes
//! never send zero pages (which thin-provisioned or deduplicating storage would not store).

use std::alloc::{alloc_zeroed, dealloc, Layout};

/// A heap buffer aligned to 4096 bytes (good for `O_DIRECT`), filled with non-zero bytes.
pub struct AlignedBuf {
    ptr: *mut u8,
    layout: Layout,
}

// SAFETY: the buffer is plain memory exclusively owned by this value.
unsafe impl Send for AlignedBuf {}
// SAFETY: shared access only reads through `as_slice`; writes need `&mut self`.
unsafe impl Sync for AlignedBuf {}

impl AlignedBuf {
    /// Alignment of every buffer (the largest logical block size O_DIRECT asks for in practice).
    pub const ALIGN: usize = 4096;

    /// Allocate `len` bytes (rounded up to the alignment), filled with a non-zero pattern
    /// derived from `seed` so writes never send zero pages.
    pub fn new(len: usize, seed: u64) -> Self {
        let size = len.max(1).div_ceil(Self::ALIGN) * Self::ALIGN;
        let layout = Layout::from_size_align(size, Self::ALIGN).expect("buffer layout");
        // SAFETY: layout has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        let mut buf = AlignedBuf { ptr, layout };
        fill_nonzero(buf.as_mut_slice(), seed);
        buf
    }

    /// The whole buffer.
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: ptr is valid for layout.size() bytes for the lifetime of self.
        unsafe { std::slice::from_raw_parts(self.ptr, self.layout.size()) }
    }

    /// The whole buffer, mutable.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, and &mut self guarantees exclusivity.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.layout.size()) }
    }

    /// Raw pointer for engines that hand the buffer to the kernel.
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with the same layout.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

/// Fill `buf` with a pseudo-random pattern (xorshift64*) in which no byte is zero.
pub fn fill_nonzero(buf: &mut [u8], seed: u64) {
    let mut x = seed ^ 0x9E37_79B9_7F4A_7C15;
    if x == 0 {
        x = 1;
    }
    for chunk in buf.chunks_mut(8) {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        let v = x.wrapping_mul(0x2545_F491_4F6C_DD1D).to_le_bytes();
        for (b, s) in chunk.iter_mut().zip(v) {
            *b = s | 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_aligned_and_nonzero() {
        let b = AlignedBuf::new(5000, 7);
        assert_eq!(b.as_slice().as_ptr() as usize % AlignedBuf::ALIGN, 0);
        assert_eq!(b.as_slice().len(), 8192);
        assert!(b.as_slice().iter().all(|&x| x != 0));
    }
}
