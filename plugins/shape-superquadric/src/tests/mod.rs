//! Checks of the shape and its contacts against numbers computed here independently:
//! elementary forms, quadrature of the implicit function, dense sampling of surfaces.

mod contacts;
mod mass;
mod radii;
