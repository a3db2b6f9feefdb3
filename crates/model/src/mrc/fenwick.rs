//! A Fenwick (binary indexed) tree of 0/1 marks over access times (Fenwick, "A new data
//! structure for cumulative frequency tables", 1994). The stack-distance engine keeps one mark
//! per distinct key at the time of its last access, so the number of distinct keys touched
//! since time t is a suffix sum: O(log n) per query and update.

pub(crate) struct Fenwick {
    tree: Vec<u32>,
}

impl Fenwick {
    pub(crate) fn new(n: usize) -> Self {
        Fenwick { tree: vec![0; n + 1] }
    }

    /// Builds from marks in O(n).
    pub(crate) fn from_marks(n: usize, marks: impl Iterator<Item = usize>) -> Self {
        let mut tree = vec![0u32; n + 1];
        for i in marks {
            tree[i + 1] += 1;
        }
        for i in 1..=n {
            let j = i + (i & i.wrapping_neg());
            if j <= n {
                tree[j] += tree[i];
            }
        }
        Fenwick { tree }
    }

    pub(crate) fn len(&self) -> usize {
        self.tree.len() - 1
    }

    pub(crate) fn add(&mut self, i: usize, delta: i32) {
        let n = self.tree.len();
        let mut i = i + 1;
        while i < n {
            self.tree[i] = self.tree[i].wrapping_add_signed(delta);
            i += i & i.wrapping_neg();
        }
    }

    /// Sum of marks at positions `0..=i`.
    pub(crate) fn prefix(&self, i: usize) -> u32 {
        let mut i = i + 1;
        let mut s = 0u32;
        while i > 0 {
            s = s.wrapping_add(self.tree[i]);
            i &= i - 1;
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_sums_match_naive() {
        let marks = [0usize, 3, 4, 9, 15];
        let mut f = Fenwick::new(16);
        for &m in &marks {
            f.add(m, 1);
        }
        let g = Fenwick::from_marks(16, marks.iter().copied());
        for i in 0..16 {
            let naive = marks.iter().filter(|&&m| m <= i).count() as u32;
            assert_eq!((f.prefix(i), g.prefix(i)), (naive, naive), "at {i}");
        }
        f.add(4, -1);
        assert_eq!(f.prefix(15), 4);
    }
}
