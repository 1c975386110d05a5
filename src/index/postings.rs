//! Every term's postings list, in term-id order, each list in document order.
//!
//! Why not a `Vec<Vec<Posting>>`: a ledger that carries ids, paths, numbers and hashes
//! has millions of terms with one posting each, and a vector per term cost 24 bytes and
//! an allocation of 32 for that one 8-byte posting (issue #44's memory on short entries).
//! Here a term's head is 24 bytes, a vector's size: nothing, its one posting inline (no
//! allocation), or the vector of two postings or more. Readers see a slice either way.
//! (A 12-byte head holding the index of a vector kept elsewhere saved 12 bytes more a
//! term but cost a first start a dependent cache miss a posting: 15 → 18 s on a ledger
//! of such terms; docs/performance.md.)

use super::text::Posting;

/// A term's list: empty, one posting, or a vector of two or more (24 bytes: the
/// discriminant sits in the vector's capacity, which never uses its top bit).
#[derive(Clone, Debug)]
enum Head {
    Empty,
    One(Posting),
    Many(Vec<Posting>),
}

/// The postings of every term.
#[derive(Default)]
pub(super) struct Postings {
    heads: Vec<Head>,
}

impl Postings {
    /// Room for a new term, with no postings.
    pub(super) fn push_term(&mut self) {
        self.heads.push(Head::Empty);
    }

    /// A new term with the postings `list`.
    pub(super) fn push_list(&mut self, mut list: Vec<Posting>) {
        self.heads.push(match list.len() {
            0 => Head::Empty,
            1 => Head::One(list[0]),
            _ => {
                list.shrink_to_fit();
                Head::Many(list)
            }
        });
    }

    /// Makes room for `n` more terms.
    pub(super) fn reserve_terms(&mut self, n: usize) {
        self.heads.reserve_exact(n);
    }

    /// Number of terms.
    pub(super) fn len(&self) -> usize {
        self.heads.len()
    }

    /// Term `t`'s postings.
    #[inline]
    pub(super) fn list(&self, t: u32) -> &[Posting] {
        match &self.heads[t as usize] {
            Head::Empty => &[],
            Head::One(p) => std::slice::from_ref(p),
            Head::Many(list) => list,
        }
    }

    /// Every term's postings, in term order.
    pub(super) fn lists(&self) -> impl Iterator<Item = &[Posting]> {
        (0..self.heads.len() as u32).map(|t| self.list(t))
    }

    /// Appends `p` to term `t`'s list (`p.doc` above every document already in it).
    pub(super) fn push(&mut self, t: u32, p: Posting) {
        let head = &mut self.heads[t as usize];
        match head {
            Head::Empty => *head = Head::One(p),
            Head::One(first) => {
                // 24 bytes: the smallest block glibc's malloc gives.
                let mut list = Vec::with_capacity(3);
                list.extend([*first, p]);
                *head = Head::Many(list);
            }
            Head::Many(list) => {
                if list.len() == list.capacity() {
                    // Grow by an eighth, not double: at most 12.5 % unused capacity
                    // (doubling left 43 % at 1M entries). Large lists are reallocated by
                    // remapping pages, so the smaller steps cost little.
                    list.reserve_exact(list.len() / 8 + 4);
                }
                list.push(p);
            }
        }
    }

    /// Heap bytes held.
    pub(super) fn heap_bytes(&self) -> usize {
        let lists: usize = self
            .heads
            .iter()
            .map(|h| match h {
                Head::Many(l) => l.capacity() * std::mem::size_of::<Posting>(),
                _ => 0,
            })
            .sum();
        self.heads.capacity() * std::mem::size_of::<Head>() + lists
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn posting(doc: u32) -> Posting {
        Posting {
            doc,
            tf: [doc as u8, 1, 0, 0],
        }
    }

    /// Lists of every length built by pushes and given whole read back as they were, in
    /// term order; a head is a vector's size.
    #[test]
    fn lists_read_back_whatever_their_length() {
        assert_eq!(std::mem::size_of::<Head>(), 24);
        let mut p = Postings::default();
        let want: Vec<Vec<u32>> = (0..40u32).map(|t| (0..t * t % 37).collect()).collect();
        for (t, docs) in want.iter().enumerate() {
            p.push_term();
            for &d in docs {
                p.push(t as u32, posting(d));
            }
        }
        for docs in &want {
            p.push_list(docs.iter().map(|&d| posting(d)).collect());
        }
        assert_eq!(p.len(), 80);
        let got: Vec<Vec<u32>> = p
            .lists()
            .map(|l| l.iter().map(|x| x.doc).collect())
            .collect();
        assert_eq!(got[..40], want[..]);
        assert_eq!(got[40..], want[..]);
        for (t, docs) in want.iter().enumerate() {
            let l = p.list(t as u32);
            assert!(l.iter().map(|x| x.tf[0]).eq(docs.iter().map(|&d| d as u8)));
        }
    }
}
