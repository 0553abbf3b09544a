//! Supersession through the index: the facts the build kept, turned into links by
//! goldfish-store's rule ([`Supersession::from_facts`]), and the entries that rule hides.

use goldfish_store::Supersession;

use super::search::Fallback;
use super::*;

/// One workspace's supersession as its index knows it.
#[derive(Debug, Default)]
pub(crate) struct Indexed {
    /// The links, by the store's rule.
    pub(crate) links: Supersession,
    /// The entries (local numbers, sorted) whose id some entry supersedes.
    pub(crate) hidden: Vec<u32>,
}

/// The supersession of the workspace `ix` indexes (fresh). A workspace without a single
/// `Supersedes` or `Topic` bullet costs nothing: its section is empty, and not read.
pub(crate) fn supersession(ix: &WsIndex) -> Result<Indexed, Fallback> {
    // An empty section is a record count of zero: its length and checksum, both in the
    // (checked) header, say so without reading it.
    let section = ix.header.sections[SUPERSESSION];
    if section.len == 4 && section.sum == format::checksum(&0u32.to_le_bytes()) {
        return Ok(Indexed::default());
    }
    let open = ix.reopen().map_err(|c| Fallback(c.0))?;
    let records = open
        .supersession_records()
        .map_err(|c| Fallback::unusable(&open, c))?;
    let links = Supersession::from_facts(records.iter().map(|r| &r.facts));
    let mut hidden: Vec<u32> = records
        .iter()
        .filter(|r| links.is_superseded(&r.facts.id))
        .map(|r| r.doc)
        .collect();
    hidden.sort_unstable();
    hidden.dedup();
    Ok(Indexed { links, hidden })
}
