//! The geometry functors' pair caches (temporal coherence, `Cg2Functor::cache_len`)
//! change no result: rocks poured into a box, where pairs come within the broad phase's
//! reach, are rejected along their cached separating direction, touch and part again,
//! give bitwise the same trajectories with the cache, without it, and with it dropped in
//! the middle of the run (as a resumed run does: checkpoints do not save it).

use dem_verification::sim_from_text;

/// scenes/rocks.ron with `count` rocks dropped from at most 6 cm into its box.
fn scene(count: usize) -> String {
    let root = dem_verification::root();
    let text = std::fs::read_to_string(root.join("scenes/rocks.ron")).unwrap();
    let text = text
        .replace("count: 300", &format!("count: {count}"))
        .replace("max: (0.12, 0.12, 0.3)", "max: (0.12, 0.12, 0.06)");
    assert!(text.contains(&format!("count: {count},")) && text.contains("0.06)"));
    text
}

/// Every bit of the bodies' state after `steps` steps, the largest number of slots
/// holding a cache seen at a step, and the contacts at the end. `cache(step)` says
/// whether the cache is on for that step.
fn run(steps: u64, cache: impl Fn(u64) -> bool) -> (Vec<[u64; 13]>, usize, usize) {
    let mut sim = sim_from_text(&scene(60), "rocks-cache.ron").unwrap();
    let mut most = 0;
    for k in 0..steps {
        sim.contacts.set_pair_cache(cache(k));
        sim.step().unwrap();
        most = most.max(sim.contacts.cached_pairs());
    }
    let p = &sim.particles;
    let state = (0..p.len())
        .map(|i| {
            let (x, v, w, q) = (p.pos[i], p.vel[i], p.angvel[i], p.ori[i]);
            [
                x.x, x.y, x.z, v.x, v.y, v.z, w.x, w.y, w.z, q.i, q.j, q.k, q.w,
            ]
            .map(f64::to_bits)
        })
        .collect();
    (state, most, sim.contacts.active())
}

#[test]
fn runs_with_and_without_the_pair_cache_agree_bitwise() {
    let steps = 2500;
    let (with, cached, contacts) = run(steps, |_| true);
    let (without, none, _) = run(steps, |_| false);
    let (dropped, ..) = run(steps, |k| !(1000..1010).contains(&k));
    println!("{contacts} contacts at the end; up to {cached} pairs cached at a step");
    assert_eq!(none, 0, "the cache was used while switched off");
    assert!(cached > 20, "only {cached} pairs ever cached");
    assert!(
        contacts > 20,
        "only {contacts} contacts: the rocks never met"
    );
    assert!(
        with == without,
        "trajectories differ with and without the cache"
    );
    assert!(
        with == dropped,
        "dropping the cache changed the trajectories"
    );
}
