"""Time-stepping programs for reverse mode under a memory budget (tests/test_checkpoint.py): loops that carry
arrays and numbers from one step to the next, written as simulation codes write them (rebinding, writes in
place through views, ping-pong buffers, element loops, while loops that stop early, data-dependent branches,
helpers, two loops in a row, stages whose temporaries grow). Each entry: (name, function, make(rng) -> arguments, argnums)."""
import numpy as np


def heat_rebind(kappa, u0, steps):
    u = u0.copy()
    n = u.shape[0]
    for t in range(steps):
        lap = np.zeros(n)
        lap[1:-1] = u[:-2] - 2.0 * u[1:-1] + u[2:]
        u = u + 0.1 * kappa * lap
    return np.sum(u * u)


def diffusion_view(u0, k, steps):
    u = u0.copy()
    inner = u[1:-1]
    for t in range(steps):
        inner += k * (u[:-2] - 2.0 * u[1:-1] + u[2:])
        u[0] = 0.5 * u[1]
    return np.sum(np.sin(u) * u)


def ping_pong(a0, steps):
    a = a0.copy()
    b = np.zeros_like(a0)
    for t in range(steps):
        b[1:-1] = 0.3 * (a[:-2] + a[1:-1] + a[2:]) + 0.05 * a[1:-1] ** 2
        a, b = b, a
    return np.sum(np.tanh(a))


def element_loops(k, u0, steps):
    u = u0.copy()
    n = u.shape[0]
    for t in range(steps):
        un = u.copy()
        for i in range(1, n - 1):
            u[i] = un[i] + k[i] * (un[i - 1] - 2.0 * un[i] + un[i + 1]) - 0.01 * un[i] ** 3
    return np.sum(u ** 2)


def pendulum_until(y0, dt, steps):
    y = y0
    v = 0.0
    t = 0
    while t < steps:
        a = -np.sin(y) - 0.1 * v
        v = v + dt * a
        y = y + dt * v
        t += 1
        if y > 10.0:
            break
    return y * y + v


def early_return(x0, steps):
    x = x0.copy()
    for t in range(steps):
        x = x - 0.05 * np.sin(x) * x
        if np.max(np.abs(x)) > 1e6:
            return 0.0
    return np.sum(x ** 3)


def jacobi_2d(a0, steps):
    a = a0.copy()
    b = a0.copy()
    for t in range(steps):
        b[1:-1, 1:-1] = 0.2 * (a[1:-1, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] + a[2:, 1:-1] + a[:-2, 1:-1])
        a[1:-1, 1:-1] = 0.2 * (b[1:-1, 1:-1] + b[1:-1, :-2] + b[1:-1, 2:] + b[2:, 1:-1] + b[:-2, 1:-1])
        a[1:-1, 1:-1] = a[1:-1, 1:-1] * (1.0 - 0.01 * a[1:-1, 1:-1])
    return np.sum(a * a)


def energy_accumulated(x0, w, steps):
    x = x0.copy()
    energy = 0.0
    for t in range(steps):
        x = np.tanh(w @ x)
        energy += np.sum(x * x) * (t + 1)
    return energy


def branch_on_data(x0, steps):
    x = x0.copy()
    s = 0.0
    for t in range(steps):
        if np.sum(x) > 0.0:
            x = x * 0.9 + 0.1 * np.cos(x)
        else:
            x = x * 1.05 - 0.02 * x * x
        s = s + np.mean(x) ** 2
    return s + np.sum(x)


def _rhs(y, p):
    return np.array([p * y[1], -y[0] - 0.1 * y[1] * y[1], y[0] * y[1] - p * y[2]])


def rk4(p, y0, dt, steps):
    y = y0.copy()
    for t in range(steps):
        k1 = _rhs(y, p)
        k2 = _rhs(y + 0.5 * dt * k1, p)
        k3 = _rhs(y + 0.5 * dt * k2, p)
        k4 = _rhs(y + dt * k3, p)
        y = y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.sum(y * y)


def two_loops(x0, steps):
    x = x0.copy()
    for t in range(steps):
        x = np.sin(x) + 0.5 * x
    y = x * 2.0
    for t in range(steps // 2):
        y[1:] = y[1:] * 0.7 + 0.3 * np.cos(y[:-1])
    return np.sum(y * x)


def strided_steps(x0, steps):
    x = x0.copy()
    for t in range(steps, 0, -3):
        x = x * (1.0 + 0.001 * t) - 0.02 * x ** 3
    return np.sum(x)


def first_step_special(x, steps):
    for t in range(steps):
        if t == 0:
            acc = x * 1.0
            s = np.sum(x)
        else:
            acc = np.sin(acc) * x + 0.1 * acc
            s = s + np.sum(acc * acc)
    return s + np.sum(acc)


def growing_stages(x):
    n = x.shape[0]
    y = x * 1.0
    width = 1
    while width < n:
        w = np.cos(np.arange(width) * 0.3) + 1.0
        for start in range(0, n, 2 * width):
            top = y[start:start + width].copy()
            bot = np.sin(y[start + width:start + 2 * width]) * w
            y[start:start + width] = top + bot
            y[start + width:start + 2 * width] = top * bot
        width *= 2
    return np.sum(y ** 2)


def _normal(rng, *shape):
    return rng.normal(size=shape)


PROGRAMS = [
    ("heat_rebind", heat_rebind, lambda r: (0.7, _normal(r, 24), 17), 0),
    ("diffusion_view", diffusion_view, lambda r: (_normal(r, 20), 0.2, 15), 0),
    ("ping_pong", ping_pong, lambda r: (0.5 * _normal(r, 18), 13), 0),
    ("element_loops", element_loops, lambda r: (r.uniform(0.0, 0.3, 12), _normal(r, 12), 11), 0),
    ("pendulum_until", pendulum_until, lambda r: (0.3, 0.05, 40), 0),
    ("early_return", early_return, lambda r: (_normal(r, 9), 16), 0),
    ("jacobi_2d", jacobi_2d, lambda r: (_normal(r, 8, 7), 6), 0),
    ("energy_accumulated", energy_accumulated, lambda r: (_normal(r, 6), 0.4 * _normal(r, 6, 6), 12), 0),
    ("branch_on_data", branch_on_data, lambda r: (_normal(r, 7), 14), 0),
    ("rk4", rk4, lambda r: (0.8, _normal(r, 3), 0.05, 21), 0),
    ("two_loops", two_loops, lambda r: (_normal(r, 10), 9), 0),
    ("strided_steps", strided_steps, lambda r: (0.5 * _normal(r, 8), 25), 0),
    ("first_step_special", first_step_special, lambda r: (0.5 * _normal(r, 6), 13), 0),
    ("growing_stages", growing_stages, lambda r: (0.5 * _normal(r, 16),), 0),
]
