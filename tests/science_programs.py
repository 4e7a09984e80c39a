"""Small scientific programs written the way people write NumPy code (module constants, helpers,
helpers passed as arguments, lists, loops over ``range``, in-place updates, early returns, ``if`` on
data, a ``print`` in a branch that is not normally taken), for tests/test_science_programs.py.

Each program is a function of float arrays (and a few int or float scalars) that returns a float.
``PROGRAMS`` pairs each one with a maker ``rng -> args`` that draws inputs where the program is smooth:
away from the kinks of abs/max, from singular matrices and from divisions by numbers near zero.
"""
import math

import numpy as np

# ---- grids and steps shared by the PDE programs --------------------------------------------------
HEAT_DX = 0.1
HEAT_DT = 0.004
HEAT_STEPS = 20

GRID_H = 0.25
HEAT2D_DT = 0.01
HEAT2D_STEPS = 10

WAVE_DX = 0.1
WAVE_DT = 0.05
WAVE_STEPS = 15

ADV_DX = 0.2
ADV_DT = 0.1
ADV_STEPS = 12

RK_H = 0.05
RK_STEPS = 30

GRAVITY = 1.0
SOFTENING = 0.1

L2_PENALTY = 1e-2
RATE = 0.03
STRIKE = 1.0
MATURITY = 1.0
WINDOW = 3
POWER_STEPS = 25
ICE_DX = 1.0
ICE_DT = 0.05
ICE_STEPS = 20


# ---- 1. explicit FTCS scheme for the 1-D heat equation, fixed (Dirichlet) ends --------------------
def heat_1d_ftcs(u0, kappa):
    u = u0.copy()
    r = kappa * HEAT_DT / HEAT_DX ** 2
    if r > 0.5:
        print("warning: FTCS is unstable for r =", r)
    for step in range(HEAT_STEPS):
        u[1:-1] += r * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return np.sum(u ** 2) * HEAT_DX


def _heat_1d_inputs(rng):
    return rng.normal(size=10), float(rng.uniform(0.5, 1.0))


# ---- 2. explicit 5-point stencil for the 2-D heat equation ---------------------------------------
def laplacian_2d(T, h):
    lap = np.zeros_like(T)
    lap[1:-1, 1:-1] = (T[2:, 1:-1] + T[:-2, 1:-1] + T[1:-1, 2:] + T[1:-1, :-2] - 4.0 * T[1:-1, 1:-1]) / h ** 2
    return lap


def heat_2d_explicit(T0, alpha):
    T = T0.copy()
    for n in range(HEAT2D_STEPS):
        T = T + HEAT2D_DT * alpha * laplacian_2d(T, GRID_H)
    return np.mean(T ** 2)


def _heat_2d_inputs(rng):
    return rng.normal(size=(6, 6)), float(rng.uniform(0.5, 1.2))


# ---- 3. leapfrog (three-level) scheme for the 1-D wave equation, energy at the end ---------------
def wave_1d_leapfrog(u0, c):
    C2 = (c * WAVE_DT / WAVE_DX) ** 2
    u_prev = u0.copy()
    u = u0.copy()
    # first step from rest: u^1 = u^0 + C^2/2 * D2 u^0
    u[1:-1] = u0[1:-1] + 0.5 * C2 * (u0[2:] - 2.0 * u0[1:-1] + u0[:-2])
    for step in range(WAVE_STEPS):
        u_next = np.zeros_like(u)
        u_next[1:-1] = 2.0 * u[1:-1] - u_prev[1:-1] + C2 * (u[2:] - 2.0 * u[1:-1] + u[:-2])
        u_prev, u = u, u_next
    kinetic = 0.5 * np.sum(((u - u_prev) / WAVE_DT) ** 2)
    potential = 0.5 * c ** 2 * np.sum(np.diff(u) ** 2) / WAVE_DX ** 2
    return (kinetic + potential) * WAVE_DX


def _wave_1d_inputs(rng):
    x = np.linspace(0.0, 1.0, 12)
    return np.sin(np.pi * x) + 0.1 * rng.normal(size=12), float(rng.uniform(0.8, 1.5))


# ---- 4. 2-D wave equation with explicit loops over the grid ---------------------------------------
def wave_2d_loops(u0, c):
    nx, ny = u0.shape
    C2 = (c * 0.1 / GRID_H) ** 2
    u_old = u0.copy()
    u = u0.copy()
    for n in range(8):
        u_new = np.zeros_like(u)
        for i in range(1, nx - 1):
            for j in range(1, ny - 1):
                u_new[i, j] = (2.0 * u[i, j] - u_old[i, j]
                               + C2 * (u[i + 1, j] + u[i - 1, j] + u[i, j + 1] + u[i, j - 1] - 4.0 * u[i, j]))
        u_old = u
        u = u_new
    return np.sum(u ** 2)


def _wave_2d_inputs(rng):
    return rng.normal(size=(6, 6)), float(rng.uniform(0.6, 1.2))


# ---- 5. finite-volume first-order upwind advection, periodic domain -------------------------------
def upwind_flux(q, a):
    # flux through the right face of each cell
    if a >= 0.0:
        return a * q
    return a * np.roll(q, -1)


def advection_upwind(q0, a):
    q = q0.copy()
    for step in range(ADV_STEPS):
        F = upwind_flux(q, a)
        q = q - ADV_DT / ADV_DX * (F - np.roll(F, 1))
    return np.sum(q ** 2) * ADV_DX + q[0]


def _advection_inputs(rng):
    speed = float(rng.uniform(0.5, 1.5)) * float(rng.choice([-1.0, 1.0]))
    return rng.normal(size=10), speed


# ---- 6. Burgers' equation, Godunov finite-volume flux with loops over faces -----------------------
def godunov_burgers_flux(ul, ur):
    if ul >= ur:                           # shock
        s = 0.5 * (ul + ur)
        if s > 0.0:
            return 0.5 * ul * ul
        return 0.5 * ur * ur
    if ul > 0.0:                           # rarefaction
        return 0.5 * ul * ul
    elif ur < 0.0:
        return 0.5 * ur * ur
    return 0.0


def burgers_godunov(u0):
    u = u0.copy()
    n = u.shape[0]
    dt, dx = 0.05, 0.2
    for step in range(10):
        flux = np.zeros(n + 1)
        for i in range(1, n):
            flux[i] = godunov_burgers_flux(u[i - 1], u[i])
        flux[0] = 0.5 * u[0] ** 2             # outflow ends
        flux[n] = 0.5 * u[n - 1] ** 2
        u -= dt / dx * (flux[1:] - flux[:-1])
    return np.sum(u ** 3) * dx


def _burgers_inputs(rng):
    return (rng.uniform(0.5, 1.5, size=10),)


# ---- 7. classical RK4 for a damped pendulum, the right-hand side passed in -----------------------
def rk4_step(rhs, t, y, h, params):
    k1 = rhs(t, y, params)
    k2 = rhs(t + 0.5 * h, y + 0.5 * h * k1, params)
    k3 = rhs(t + 0.5 * h, y + 0.5 * h * k2, params)
    k4 = rhs(t + h, y + h * k3, params)
    return y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)


def pendulum_rhs(t, y, params):
    g_over_l = params[0]
    damping = params[1]
    return np.array([y[1], -g_over_l * np.sin(y[0]) - damping * y[1]])


def rk4_pendulum(y0, params):
    y = y0.copy()
    t = 0.0
    for i in range(RK_STEPS):
        y = rk4_step(pendulum_rhs, t, y, RK_H, params)
        t += RK_H
    return 0.5 * y[1] ** 2 + params[0] * (1.0 - np.cos(y[0]))


def _pendulum_inputs(rng):
    return rng.uniform(-1.0, 1.0, size=2), np.array([rng.uniform(5.0, 12.0), rng.uniform(0.05, 0.5)])


# ---- 8. Lotka-Volterra predator-prey, RK4 with the trajectory kept in a list ----------------------
def lotka_volterra_rhs(t, z, p):
    alpha, beta, delta, gamma = p
    x, y = z[0], z[1]
    return np.array([alpha * x - beta * x * y, delta * x * y - gamma * y])


def lotka_volterra(z0, p):
    z = z0.copy()
    t = 0.0
    trajectory = [z0.copy()]
    for i in range(40):
        z = rk4_step(lotka_volterra_rhs, t, z, 0.05, p)
        t += 0.05
        trajectory.append(z)
    traj = np.array(trajectory)
    return np.mean(traj[:, 0]) + 0.5 * np.mean(traj[:, 1] ** 2)


def _lotka_volterra_inputs(rng):
    return rng.uniform(0.5, 1.5, size=2), rng.uniform([0.8, 0.3, 0.2, 0.8], [1.2, 0.6, 0.4, 1.2])


# ---- 9. damped spring-mass chain between two walls, semi-implicit Euler -------------------------
def chain_forces(x, v, k, damping):
    n = x.shape[0]
    f = np.zeros_like(x)
    for i in range(n):
        left = x[i - 1] if i > 0 else 0.0
        right = x[i + 1] if i < n - 1 else 0.0
        f[i] = -k[i] * (x[i] - left) + k[i + 1] * (right - x[i]) - damping * v[i]
    return f


def spring_mass_chain(x0, v0, k, damping):
    x = x0.copy()
    v = v0.copy()
    dt = 0.02
    for step in range(25):
        a = chain_forces(x, v, k, damping)
        v += dt * a
        x += dt * v
    kinetic = 0.5 * np.sum(v ** 2)
    stretch = np.diff(np.concatenate(([0.0], x, [0.0])))
    return kinetic + 0.5 * np.sum(k * stretch ** 2)


def _spring_chain_inputs(rng):
    return (rng.normal(scale=0.3, size=5), rng.normal(scale=0.3, size=5), rng.uniform(2.0, 5.0, size=6),
            float(rng.uniform(0.1, 0.5)))


# ---- 10. Lennard-Jones molecular dynamics, velocity Verlet with pairwise loops --------------------
def lj_forces(pos):
    n = pos.shape[0]
    forces = np.zeros_like(pos)
    energy = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            d = pos[i] - pos[j]
            r2 = np.dot(d, d)
            inv6 = 1.0 / r2 ** 3
            energy += 4.0 * (inv6 * inv6 - inv6)
            fmag = 24.0 * (2.0 * inv6 * inv6 - inv6) / r2
            forces[i] += fmag * d
            forces[j] -= fmag * d
    return forces, energy


def lennard_jones_md(pos0, vel0):
    pos = pos0.copy()
    vel = vel0.copy()
    dt = 0.002
    forces, potential = lj_forces(pos)
    for step in range(10):
        vel += 0.5 * dt * forces
        pos += dt * vel
        forces, potential = lj_forces(pos)
        vel += 0.5 * dt * forces
    return 0.5 * np.sum(vel ** 2) + potential


def _lj_inputs(rng):
    lattice = 1.15 * np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    return lattice + rng.uniform(-0.05, 0.05, size=(4, 2)), rng.normal(scale=0.2, size=(4, 2))


# ---- 11. gravitational N-body, kick-drift-kick leapfrog, total energy ----------------------------
def nbody_accelerations(pos, mass):
    n = pos.shape[0]
    acc = np.zeros_like(pos)
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            d = pos[j] - pos[i]
            r3 = (np.sum(d ** 2) + SOFTENING ** 2) ** 1.5
            acc[i] += GRAVITY * mass[j] * d / r3
    return acc


def nbody_energy(pos, vel, mass):
    kinetic = 0.5 * np.sum(mass * np.sum(vel ** 2, axis=1))
    potential = 0.0
    n = pos.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            r = np.sqrt(np.sum((pos[i] - pos[j]) ** 2) + SOFTENING ** 2)
            potential -= GRAVITY * mass[i] * mass[j] / r
    return kinetic + potential


def nbody_leapfrog(pos0, vel0, mass):
    pos = pos0.copy()
    vel = vel0.copy()
    dt = 0.01
    acc = nbody_accelerations(pos, mass)
    for step in range(8):
        vel += 0.5 * dt * acc
        pos += dt * vel
        acc = nbody_accelerations(pos, mass)
        vel += 0.5 * dt * acc
    return nbody_energy(pos, vel, mass)


def _nbody_inputs(rng):
    return rng.normal(size=(4, 3)), rng.normal(scale=0.3, size=(4, 3)), rng.uniform(0.5, 1.5, size=4)


# ---- 12. Jacobi iteration for a diagonally dominant system ---------------------------------------
def jacobi_solve(A, b):
    D = np.diag(A)
    R = A - np.diag(D)
    x = np.zeros_like(b)
    for it in range(30):
        x = (b - R @ x) / D
    return np.dot(x, b)


def _diagonally_dominant(rng, n):
    A = rng.uniform(-1.0, 1.0, size=(n, n))
    A += np.diag(np.sum(np.abs(A), axis=1) + rng.uniform(1.0, 2.0, size=n))
    return A


def _jacobi_inputs(rng):
    return _diagonally_dominant(rng, 5), rng.normal(size=5)


# ---- 13. Gauss-Seidel sweeps with element loops, bail-out on divergence -------------------------
def gauss_seidel(A, b, sweeps):
    n = b.shape[0]
    x = np.zeros(n)
    for sweep in range(sweeps):
        for i in range(n):
            s = 0.0
            for j in range(n):
                if j != i:
                    s += A[i, j] * x[j]
            x[i] = (b[i] - s) / A[i, i]
        if not np.all(np.isfinite(x)):
            print("Gauss-Seidel diverged at sweep", sweep)
            return np.nan
    return np.dot(x, x)


def _gauss_seidel_inputs(rng):
    return _diagonally_dominant(rng, 5), rng.normal(size=5), 12


# ---- 14. a few steps of conjugate gradients on an SPD matrix built from M -----------------------
def conjugate_gradient(M, b, n_iter):
    n = b.shape[0]
    A = M @ M.T + n * np.eye(n)
    x = np.zeros_like(b)
    r = b - A @ x
    p = r.copy()
    rs_old = r @ r
    for k in range(n_iter):
        Ap = A @ p
        alpha = rs_old / (p @ Ap)
        x += alpha * p
        r -= alpha * Ap
        rs_new = r @ r
        if np.sqrt(rs_new) < 1e-10:
            break
        p = r + (rs_new / rs_old) * p
        rs_old = rs_new
    return 0.5 * x @ A @ x - b @ x


def _cg_inputs(rng):
    return rng.normal(size=(6, 6)), rng.normal(size=6), 3


# ---- 15. Kalman filter (constant velocity), negative log-likelihood of the measurements --------
KF_DT = 0.1
F_CV = np.array([[1.0, KF_DT], [0.0, 1.0]])


def kalman_predict(x, P, Q):
    return F_CV @ x, F_CV @ P @ F_CV.T + Q


def kalman_update(x, P, z, r):
    innovation = z - x[0]
    S = P[0, 0] + r
    K = P[:, 0] / S
    x = x + K * innovation
    P = P - np.outer(K, P[0, :])
    return x, P, innovation, S


def kalman_nll(zs, q, r):
    x = np.zeros(2)
    P = np.eye(2)
    Q = q * np.array([[KF_DT ** 3 / 3.0, KF_DT ** 2 / 2.0], [KF_DT ** 2 / 2.0, KF_DT]])
    nll = 0.0
    for k in range(zs.shape[0]):
        x, P = kalman_predict(x, P, Q)
        x, P, innovation, S = kalman_update(x, P, zs[k], r)
        if S <= 0.0:
            print("Kalman: innovation variance not positive at step", k)
            return np.inf
        nll += 0.5 * (np.log(2.0 * np.pi * S) + innovation ** 2 / S)
    return nll


def _kalman_inputs(rng):
    t = KF_DT * np.arange(10)
    return 0.5 + 1.2 * t + 0.2 * rng.normal(size=10), float(rng.uniform(0.5, 2.0)), float(rng.uniform(0.02, 0.1))


# ---- 16. logistic regression loss with an L2 penalty ---------------------------------------------
def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def logistic_loss(w, b, X, y):
    p = sigmoid(X @ w + b)
    eps = 1e-12
    loss = -np.mean(y * np.log(p + eps) + (1.0 - y) * np.log(1.0 - p + eps))
    return loss + L2_PENALTY * np.sum(w ** 2)


def _logistic_inputs(rng):
    X = rng.normal(size=(8, 3))
    return rng.normal(size=3), float(rng.normal()), X, (rng.uniform(size=8) < 0.5).astype(float)


# ---- 17. two-layer tanh network, mean squared error --------------------------------------------
def mlp_forward(W1, b1, W2, b2, X):
    h = np.tanh(X @ W1 + b1)
    return h @ W2 + b2


def two_layer_tanh_loss(W1, b1, W2, b2, X, y):
    pred = mlp_forward(W1, b1, W2, b2, X)
    err = pred[:, 0] - y
    return np.mean(err ** 2) + 1e-3 * (np.sum(W1 ** 2) + np.sum(W2 ** 2))


def _mlp_inputs(rng):
    return (rng.normal(scale=0.5, size=(3, 5)), rng.normal(scale=0.1, size=5), rng.normal(scale=0.5, size=(5, 1)),
            rng.normal(scale=0.1, size=1), rng.normal(size=(6, 3)), rng.normal(size=6))


# ---- 18. softmax cross-entropy of a linear classifier, integer labels ---------------------------
def log_softmax(z):
    z = z - np.max(z, axis=1, keepdims=True)
    return z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))


def softmax_cross_entropy(W, X, labels):
    logp = log_softmax(X @ W)
    n = X.shape[0]
    return -np.mean(logp[np.arange(n), labels])


def _softmax_inputs(rng):
    return rng.normal(size=(3, 4)), rng.normal(size=(7, 3)), rng.integers(0, 4, size=7)


# ---- 19. Monte Carlo price of an Asian option under GBM, noise drawn beforehand -----------------
def softplus(x):
    return np.log1p(np.exp(x))


def asian_option_mc(s0, sigma, noise):
    n_paths, n_steps = noise.shape
    dt = MATURITY / n_steps
    s = np.full(n_paths, s0)
    running = np.zeros(n_paths)
    for k in range(n_steps):
        s = s * np.exp((RATE - 0.5 * sigma ** 2) * dt + sigma * np.sqrt(dt) * noise[:, k])
        running += s
    average = running / n_steps
    payoff = softplus(average - STRIKE)        # a smoothed call payoff
    return np.exp(-RATE * MATURITY) * np.mean(payoff)


def _asian_inputs(rng):
    return float(rng.uniform(0.8, 1.2)), float(rng.uniform(0.1, 0.4)), rng.normal(size=(8, 6))


# ---- 20. trapezoid rule, the integrand handed to the rule --------------------------------------
def damped_cosine(x, params):
    return np.exp(-params[0] * x ** 2) * np.cos(params[1] * x)


def trapezoid(f, lo, hi, n, params):
    x = np.linspace(lo, hi, n + 1)
    y = f(x, params)
    h = (hi - lo) / n
    return h * (0.5 * y[0] + np.sum(y[1:-1]) + 0.5 * y[-1])


def trapezoid_integral(params, upper):
    return trapezoid(damped_cosine, 0.0, upper, 32, params)


def _trapezoid_inputs(rng):
    return rng.uniform([0.5, 1.0], [2.0, 3.0]), float(rng.uniform(1.0, 3.0))


# ---- 21. composite Simpson rule for the arc length of a polynomial curve -----------------------
def simpson(y, h):
    n = y.shape[0] - 1
    if n % 2 == 1:
        raise ValueError("Simpson's rule needs an even number of intervals")
    s = y[0] + y[-1]
    for i in range(1, n, 2):
        s += 4.0 * y[i]
    for i in range(2, n - 1, 2):
        s += 2.0 * y[i]
    return s * h / 3.0


def simpson_arc_length(coeffs):
    x = np.linspace(0.0, 1.0, 17)
    slope = np.zeros_like(x)
    for k in range(1, coeffs.shape[0]):
        slope += k * coeffs[k] * x ** (k - 1)
    return simpson(np.sqrt(1.0 + slope ** 2), x[1] - x[0])


def _simpson_inputs(rng):
    return (rng.normal(size=5),)


# ---- 22. Horner's scheme for a polynomial at many points ----------------------------------------
def horner(coeffs, x):
    result = np.zeros_like(x)
    for k in range(len(coeffs) - 1, -1, -1):
        result = result * x + coeffs[k]
    return result


def horner_polynomial(coeffs, x):
    p = horner(coeffs, x)
    return np.sum(p ** 2) / len(x)


def _horner_inputs(rng):
    return rng.normal(size=6), rng.uniform(-1.5, 1.5, size=8)


# ---- 23. polynomial least squares through the normal equations ---------------------------------
def design_matrix(t, degree):
    columns = []
    for k in range(degree + 1):
        columns.append(t ** k)
    return np.stack(columns, axis=1)


def least_squares_residual(t, y):
    A = design_matrix(t, 2)
    coef = np.linalg.solve(A.T @ A, A.T @ y)
    r = y - A @ coef
    return r @ r + coef[2] ** 2


def _least_squares_inputs(rng):
    t = np.linspace(-1.0, 1.0, 10) + rng.uniform(-0.03, 0.03, size=10)
    return t, 1.0 - 0.5 * t + 2.0 * t ** 2 + 0.3 * rng.normal(size=10)


# ---- 24. power iteration, Rayleigh quotient of the dominant eigenvector ------------------------
def power_iteration(A):
    n = A.shape[0]
    v = np.ones(n) / np.sqrt(n)
    for _ in range(POWER_STEPS):
        w = A @ v
        v = w / np.linalg.norm(w)
    return v @ A @ v


def _power_inputs(rng):
    Q, _ = np.linalg.qr(rng.normal(size=(5, 5)))
    eigenvalues = np.array([4.0, 1.5, 1.0, 0.5, -0.8])
    return (Q @ np.diag(eigenvalues) @ Q.T + 0.05 * rng.normal(size=(5, 5)),)


# ---- 25. 1-D shallow-ice approximation for a glacier: nonlinear diffusion (Glen n = 3) -------------
def ice_flux(H, bed, A_glen):
    S = H + bed
    slope = np.diff(S) / ICE_DX
    H_face = 0.5 * (H[1:] + H[:-1])
    D = A_glen * H_face ** 5 * slope ** 2
    return -D * slope


def glacier_volume(H0, bed, A_glen, mass_balance):
    H = H0.copy()
    for step in range(ICE_STEPS):
        q = ice_flux(H, bed, A_glen)
        dHdt = np.zeros_like(H)
        dHdt[1:-1] = -(q[1:] - q[:-1]) / ICE_DX
        H = np.maximum(H + ICE_DT * (dHdt + mass_balance), 0.0)
    return np.sum(H) * ICE_DX


def _glacier_inputs(rng):
    x = np.linspace(0.0, 1.0, 10)
    H0 = 1.0 + 0.8 * np.sin(np.pi * x) + 0.05 * rng.normal(size=10)
    bed = 0.5 * (1.0 - x) + 0.05 * rng.normal(size=10)
    return H0, bed, float(rng.uniform(0.01, 0.03)), 0.1 * rng.normal(size=10)


# ---- 26. moving average by cumulative sums, power of the detrended signal ----------------------
def moving_average(x, w):
    c = np.cumsum(np.concatenate((np.zeros(1), x)))
    return (c[w:] - c[:-w]) / w


def detrended_power(signal):
    trend = moving_average(signal, WINDOW)
    residual = signal[WINDOW - 1:] - trend
    return np.sum(residual ** 2) / residual.shape[0]


def _detrend_inputs(rng):
    return (np.sin(np.linspace(0.0, 3.0, 12)) + 0.3 * rng.normal(size=12),)


# ---- 27. first-order IIR low-pass (exponential smoothing) filter ---------------------------------
def exponential_smoothing(x, alpha):
    y = np.zeros_like(x)
    y[0] = x[0]
    for i in range(1, x.shape[0]):
        y[i] = alpha * x[i] + (1.0 - alpha) * y[i - 1]
    return np.sum((y - x) ** 2) + y[-1]


def _smoothing_inputs(rng):
    return rng.normal(size=12), float(rng.uniform(0.2, 0.8))


# ---- 28. smoothing-spline-like penalty: misfit plus squared second differences ------------------
def smoothing_penalty(f, y, lam):
    misfit = np.sum((f - y) ** 2)
    roughness = np.sum(np.diff(f, n=2) ** 2)
    return misfit + lam * roughness


def _penalty_inputs(rng):
    return rng.normal(size=10), rng.normal(size=10), float(rng.uniform(0.5, 5.0))


# ---- 29. Whittaker smoother: solve (I + lam D'D) z = y with D the second-difference matrix ---------
def whittaker_smoother(y, lam):
    n = y.shape[0]
    D = np.diff(np.eye(n), 2, axis=0)
    z = np.linalg.solve(np.eye(n) + lam * D.T @ D, y)
    return np.sum(z ** 2) + np.sum(np.diff(z) ** 2)


def _whittaker_inputs(rng):
    return rng.normal(size=8), float(rng.uniform(0.5, 5.0))


# ---- 30. Newton's method with a fixed number of steps, function and derivative passed in ---------
def cubic(x, c):
    return x ** 3 + c[0] * x - c[1]


def cubic_prime(x, c):
    return 3.0 * x ** 2 + c[0]


def newton(f, fprime, x0, c, n_steps):
    x = x0
    for k in range(n_steps):
        dfx = fprime(x, c)
        if dfx == 0.0:
            print("Newton: zero derivative at step", k)
            return x
        x = x - f(x, c) / dfx
    return x


def newton_cubic_root(c, x0):
    return newton(cubic, cubic_prime, x0, c, 12) ** 2


def _newton_inputs(rng):
    return np.array([rng.uniform(1.0, 3.0), rng.uniform(-2.0, 2.0)]), float(rng.uniform(0.5, 1.5))


# ---- 31. SIR epidemic, forward Euler until a final time, an early stop when it dies out ----------
def sir_final_size(y0, rates):
    beta, gamma = rates[0], rates[1]
    s, i, r = y0[0], y0[1], y0[2]
    t, dt, t_end = 0.0, 0.1, 4.0
    while t < t_end - 1e-9:
        new_infections = beta * s * i
        recoveries = gamma * i
        s = s - dt * new_infections
        i = i + dt * (new_infections - recoveries)
        r = r + dt * recoveries
        t += dt
        if i < 1e-12:
            break
    return r + 0.5 * i


def _sir_inputs(rng):
    i0 = float(rng.uniform(0.01, 0.05))
    return np.array([1.0 - i0, i0, 0.0]), rng.uniform([1.5, 0.3], [3.0, 0.6])


# ---- 32. Gray-Scott reaction-diffusion in 1-D, periodic Laplacian with np.roll --------------------
def periodic_laplacian(u, h):
    return (np.roll(u, 1) - 2.0 * u + np.roll(u, -1)) / h ** 2


def gray_scott(u0, v0, feed, kill):
    u = u0.copy()
    v = v0.copy()
    Du, Dv, h, dt = 0.2, 0.1, 1.0, 0.5
    for step in range(20):
        uvv = u * v * v
        u += dt * (Du * periodic_laplacian(u, h) - uvv + feed * (1.0 - u))
        v += dt * (Dv * periodic_laplacian(v, h) + uvv - (feed + kill) * v)
    return np.mean(v) + np.mean(u ** 2)


def _gray_scott_inputs(rng):
    return (1.0 - 0.2 * rng.uniform(size=10), 0.3 * rng.uniform(size=10), float(rng.uniform(0.02, 0.06)),
            float(rng.uniform(0.05, 0.07)))


# ---- 33. Gaussian-process negative log marginal likelihood via Cholesky -------------------------
def rbf_kernel(x1, x2, length, amplitude):
    d = x1[:, None] - x2[None, :]
    return amplitude ** 2 * np.exp(-0.5 * d ** 2 / length ** 2)


def gp_negative_log_likelihood(x, y, log_hyper):
    length, amplitude, noise = np.exp(log_hyper)
    n = x.shape[0]
    K = rbf_kernel(x, x, length, amplitude) + noise ** 2 * np.eye(n)
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L))) + 0.5 * n * math.log(2.0 * math.pi)


def _gp_inputs(rng):
    x = np.sort(rng.uniform(0.0, 3.0, size=7))
    return x, np.sin(x) + 0.1 * rng.normal(size=7), np.log(np.array([rng.uniform(0.5, 1.5), 1.0, 0.3]))


PROGRAMS = [
    (heat_1d_ftcs, _heat_1d_inputs),
    (heat_2d_explicit, _heat_2d_inputs),
    (wave_1d_leapfrog, _wave_1d_inputs),
    (wave_2d_loops, _wave_2d_inputs),
    (advection_upwind, _advection_inputs),
    (burgers_godunov, _burgers_inputs),
    (rk4_pendulum, _pendulum_inputs),
    (lotka_volterra, _lotka_volterra_inputs),
    (spring_mass_chain, _spring_chain_inputs),
    (lennard_jones_md, _lj_inputs),
    (nbody_leapfrog, _nbody_inputs),
    (jacobi_solve, _jacobi_inputs),
    (gauss_seidel, _gauss_seidel_inputs),
    (conjugate_gradient, _cg_inputs),
    (kalman_nll, _kalman_inputs),
    (logistic_loss, _logistic_inputs),
    (two_layer_tanh_loss, _mlp_inputs),
    (softmax_cross_entropy, _softmax_inputs),
    (asian_option_mc, _asian_inputs),
    (trapezoid_integral, _trapezoid_inputs),
    (simpson_arc_length, _simpson_inputs),
    (horner_polynomial, _horner_inputs),
    (least_squares_residual, _least_squares_inputs),
    (power_iteration, _power_inputs),
    (glacier_volume, _glacier_inputs),
    (detrended_power, _detrend_inputs),
    (exponential_smoothing, _smoothing_inputs),
    (smoothing_penalty, _penalty_inputs),
    (whittaker_smoother, _whittaker_inputs),
    (newton_cubic_root, _newton_inputs),
    (sir_final_size, _sir_inputs),
    (gray_scott, _gray_scott_inputs),
    (gp_negative_log_likelihood, _gp_inputs),
]

# programs leaning on NumPy's library (np.fft, order statistics, NaN-ignoring reductions, interpolation, ...)
from library_programs import PROGRAMS as _LIBRARY_PROGRAMS  # noqa: E402

PROGRAMS += _LIBRARY_PROGRAMS
