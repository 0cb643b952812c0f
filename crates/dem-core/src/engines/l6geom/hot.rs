//! An L6Geom in a hot block of the contacts' storage (the fields of [`crate::model::blocks`]):
//! read one contact's out, write one contact's in.

use crate::engines::l6geom::L6State;
use crate::model::blocks::{AREA, CHUNK, FRAME, HOT, LENS, PHI, PHI_DOT, PITCH, POINT, U, U_DOT};
use dem_api::{L6Geom, Mat3, Vec3};
use nalgebra::{Matrix3, Vector3};

/// Reads the tracked geometry of contact `k` of a hot block.
#[inline(always)]
pub(crate) fn load(block: &[f64], k: usize) -> L6State {
    // One test, from which the compiler knows every index below to be in bounds.
    let block = &block[..HOT * PITCH];
    assert!(k < CHUNK);
    let v = |f: usize| block[f * PITCH + k];
    let v3 = |f: usize| Vector3::new(v(f), v(f + 1), v(f + 2));
    L6State {
        frame: Matrix3::new(
            v(FRAME),
            v(FRAME + 1),
            v(FRAME + 2),
            v(FRAME + 3),
            v(FRAME + 4),
            v(FRAME + 5),
            v(FRAME + 6),
            v(FRAME + 7),
            v(FRAME + 8),
        ),
        point: v3(POINT),
        u: v3(U),
        phi: v3(PHI),
        u_dot: v3(U_DOT),
        phi_dot: v3(PHI_DOT),
        lens: [v(LENS), v(LENS + 1)],
        area: v(AREA),
        ..L6State::default()
    }
}

/// Reads the tracked geometry of contact `k` of a hot block straight into the record a
/// law reads (as [`load`] then [`L6State::write_api`], without the state in between).
#[inline(always)]
pub(crate) fn load_api(block: &[f64], k: usize, g: &mut L6Geom) {
    let block = &block[..HOT * PITCH];
    assert!(k < CHUNK);
    let v = |f: usize| block[f * PITCH + k];
    let v3 = |f: usize| Vec3::new(v(f), v(f + 1), v(f + 2));
    // Row r, column c of the frame is field FRAME + 3 r + c.
    g.frame = Mat3 {
        cols: [0, 1, 2].map(|c| Vec3::new(v(FRAME + c), v(FRAME + 3 + c), v(FRAME + 6 + c))),
    };
    g.point = v3(POINT);
    g.u = v3(U);
    g.phi = v3(PHI);
    g.u_dot = v3(U_DOT);
    g.phi_dot = v3(PHI_DOT);
    g.lens = [v(LENS), v(LENS + 1)];
    g.area = v(AREA);
}

/// Writes the tracked geometry of contact `k` of a hot block.
#[inline(always)]
pub(crate) fn store(block: &mut [f64], k: usize, l6: &L6State) {
    let block = &mut block[..HOT * PITCH];
    assert!(k < CHUNK);
    let mut set = |f: usize, x: f64| block[f * PITCH + k] = x;
    for r in 0..3 {
        for c in 0..3 {
            set(FRAME + 3 * r + c, l6.frame[(r, c)]);
        }
    }
    for (f, v) in [
        (POINT, &l6.point),
        (U, &l6.u),
        (PHI, &l6.phi),
        (U_DOT, &l6.u_dot),
        (PHI_DOT, &l6.phi_dot),
    ] {
        set(f, v.x);
        set(f + 1, v.y);
        set(f + 2, v.z);
    }
    set(LENS, l6.lens[0]);
    set(LENS + 1, l6.lens[1]);
    set(AREA, l6.area);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::blocks::{onset, set_onset};
    use dem_api::Onset;

    #[test]
    fn l6_state_round_trips_through_a_hot_block() {
        let n = Vector3::new(0.3, -0.4, 0.866_025_403_784_438_6).normalize();
        let l6 = L6State {
            frame: crate::engines::l6geom::initial_frame(&n),
            point: Vector3::new(1.0, 2.0, 3.0),
            u: Vector3::new(-1e-4, 2e-6, 3e-6),
            phi: Vector3::new(0.1, 0.2, 0.3),
            u_dot: Vector3::new(-0.1, 0.01, 0.02),
            phi_dot: Vector3::new(1.0, 2.0, 3.0),
            lens: [5e-4, f64::INFINITY],
            area: 1e-6,
            ..L6State::default()
        };
        let mut block = vec![0.0; HOT * PITCH];
        store(&mut block, 17, &l6);
        set_onset(
            &mut block,
            17,
            &Onset {
                time: 2.0,
                normal_velocity: -3.0,
            },
        );
        let back = load(&block, 17);
        assert_eq!(back, l6);
        // The quaternion is not stored: the one extracted from the frame, both sides.
        assert_eq!(back.frame_quaternion(), l6.frame_quaternion());
        assert_eq!(
            onset(&block, 17),
            Onset {
                time: 2.0,
                normal_velocity: -3.0
            }
        );
    }

    #[test]
    fn the_law_record_read_from_a_block_is_the_state_written_as_a_law_reads_it() {
        let l6 = L6State {
            frame: Matrix3::new(0.0, 0.6, 0.8, 1.0, 0.0, 0.0, 0.0, 0.8, -0.6),
            point: Vector3::new(1.0, 2.0, 3.0),
            u: Vector3::new(-1e-6, 2e-7, 3e-7),
            phi: Vector3::new(0.1, 0.2, 0.3),
            u_dot: Vector3::new(4.0, 5.0, 6.0),
            phi_dot: Vector3::new(7.0, 8.0, 9.0),
            lens: [1e-3, f64::INFINITY],
            area: 2.5e-7,
            ..L6State::default()
        };
        let mut block = vec![0.0; HOT * PITCH];
        store(&mut block, 5, &l6);
        let (mut direct, mut via) = (L6Geom::default(), L6Geom::default());
        load_api(&block, 5, &mut direct);
        load(&block, 5).write_api(&mut via);
        assert_eq!(direct, via);
    }
}
