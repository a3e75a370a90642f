//! Page -> ordered cells: finds the move table from its ruling and numbers every
//! cell (move number, side, box on the page).
