//! Which slots hold a contact, and which contact: a column beside the slots, and a bit
//! per slot, so that the gather walks the contacts in slot order by reading 8 bytes per
//! 64 slots (most slots, candidate pairs apart, hold none).

use super::contact::NONE;

/// The contact of each slot.
#[derive(Clone, Debug, Default)]
pub(super) struct Held {
    /// Index of each slot's contact in the list, or `NONE`.
    of: Vec<u32>,
    /// Bit `i % 64` of word `i / 64`: does slot `i` hold a contact?
    bits: Vec<u64>,
}

impl Held {
    /// `slots` slots, none holding a contact.
    pub fn reset(&mut self, slots: usize) {
        self.of.clear();
        self.of.resize(slots, NONE);
        self.bits.clear();
        self.bits.resize(slots.div_ceil(64), 0);
    }

    /// The contact of every slot (`NONE` for none).
    pub fn all(&self) -> &[u32] {
        &self.of
    }

    /// The contact of slot `i`, if any (`None` also for a slot past the end).
    pub fn get(&self, i: usize) -> Option<u32> {
        self.of.get(i).copied().filter(|&k| k != NONE)
    }

    /// Slot `i` holds contact `k`.
    pub fn set(&mut self, i: usize, k: u32) {
        self.of[i] = k;
        self.bits[i / 64] |= 1 << (i % 64);
    }

    /// Slot `i` holds no contact (nothing for a slot past the end).
    pub fn clear(&mut self, i: usize) {
        if let Some(k) = self.of.get_mut(i) {
            *k = NONE;
            self.bits[i / 64] &= !(1 << (i % 64));
        }
    }

    /// Calls `f` with each contact held, in slot order.
    #[inline]
    pub fn each(&self, mut f: impl FnMut(u32)) {
        for (of, &word) in self.of.chunks(64).zip(&self.bits) {
            let mut rest = word;
            while rest != 0 {
                f(of[rest.trailing_zeros() as usize]);
                rest &= rest - 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contacts_come_in_slot_order_and_follow_every_change() {
        let mut h = Held::default();
        h.reset(200);
        for (slot, k) in [(130, 0), (3, 1), (64, 2), (199, 3), (63, 4)] {
            h.set(slot, k);
        }
        let order = |h: &Held| {
            let mut v = Vec::new();
            h.each(|k| v.push(k));
            v
        };
        assert_eq!(order(&h), [1, 4, 2, 0, 3]);
        h.clear(64);
        h.set(3, 7);
        h.clear(500);
        assert_eq!(order(&h), [7, 4, 0, 3]);
        assert_eq!((h.get(3), h.get(64), h.get(500)), (Some(7), None, None));
        let held: Vec<u32> = h.all().iter().copied().filter(|&k| k != NONE).collect();
        assert_eq!(held, [7, 4, 0, 3]);
    }
}
