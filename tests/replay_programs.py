"""Programs whose reverse sweep must replay exactly what the forward pass did.

Each function takes float arrays ``x`` (length 6) and ``y`` (length 4) and returns a float. They are
written as users write loops: branch tests that are expressions of the loop state (evaluated on the
state of *that* iteration, never on final values), arrays made anew in each iteration and filled,
values read before a later statement overwrites them (elements, slices, views), and accumulators
updated in place. Smooth at generic inputs: branch tests are kept away from their thresholds by
the inputs ``tests/test_replay.py`` draws.
"""
import math

import numpy as np


def branch_on_product(x, y):
    s = 0.6 + 0.1 * y[0]
    for i in range(3):
        if s * 2.0 < 1.5:                       # the test reads s before the branch changes it
            s = s + 0.5 + 0.1 * y[1]
    return s * x[0]


def branch_on_cos(x, y):
    s = 0.2 * x[0]
    for i in range(5):
        if np.cos(s) > 0.5:
            s = s + 0.3 * y[0] * y[0]
        else:
            s = s - 0.05 * y[1]
    return s


def branch_on_element(x, y):
    z = x * 1.0
    acc = 0.0
    for i in range(4):
        if z[5] > 0.0:
            z[5] = z[5] - 0.7 * y[i]
            acc = acc + z[5] * z[0]
        else:
            acc = acc + 0.5 * z[1]
    return acc


def branch_on_dot(x, y):
    z = x[:4] * 1.0
    for i in range(3):
        if z @ z[::-1] > 0.2:
            z = z * y
        else:
            z = z + 0.1 * y
    return np.sum(z * z)


def elif_chain(x, y):
    s = x[0]
    out = 0.0
    for i in range(6):
        t = s + 0.25 * y[i % 4]
        if t * t > 1.0:
            s = 0.5 * s
        elif t > 0.0:
            s = s + 0.3 * t
        else:
            s = s - 0.2 * t * t
        out = out + s * x[i]
    return out


def while_on_expression(x, y):
    s = 0.1 + 0.01 * x[0]
    n = 0
    while s * s < 4.0 and n < 30:
        s = s * (1.2 + 0.05 * y[0])
        n = n + 1
    return s


def conditional_expression(x, y):
    s = 0.0
    for i in range(6):
        s = s + (x[i] * y[i % 4] if s * 3.0 < 1.0 else 0.5 * x[i])
    return s


def break_on_expression(x, y):
    s = 0.0
    for i in range(6):
        s = s + x[i] * x[i] * y[0]
        if np.sqrt(s) > 0.9:
            break
    return s


def early_return_in_loop(x, y):
    s = 1.0
    for i in range(6):
        s = s * (1.0 + 0.3 * x[i])
        if s * y[0] > 1.5:
            return s * y[1]
    return s


def array_made_each_iteration(x, y):
    s = 0.0
    for k in range(3):
        z = np.zeros(3)
        z[0] = x[0]
        s = s + z[0] * z[0]
    return s


def work_array_each_step(x, y):
    u = x[:4] * 1.0
    stiff = 0.0
    for step in range(5):
        f = np.zeros(4)
        for i in range(4):
            f[i] = -y[i] * u[i] * u[i]
        u = u + 0.05 * f
        stiff = stiff + f[0] * f[1]
    return np.sum(u) + stiff


def slice_read_then_element_write(x, y):
    a = y * 2.0
    s = np.sum(a[1:] * x[1:4])
    a[1] = 0.0
    return s + np.sum(a)


def element_read_then_slice_write(x, y):
    a = x * 1.0
    s = a[2] * a[3]
    a[1:4] = y[:3] * y[:3]
    return s + np.sum(a * a)


def view_read_then_base_write_in_loop(x, y):
    a = x * 1.0
    total = 0.0
    for i in range(3):
        v = a[i:i + 3]
        total = total + np.sum(v * v)
        a[i + 1] = a[i] * y[i]
    return total


def accumulator_in_place(x, y):
    acc = np.zeros(4)
    for i in range(5):
        acc += x[i] * y * acc + y
    return np.sum(acc * acc)


def accumulator_scaled(x, y):
    acc = x[:4] * 1.0
    for i in range(3):
        acc *= 1.0 + 0.1 * y
        acc -= 0.05 * acc * acc
    return np.sum(acc)


def state_overwritten_by_elements(x, y):
    u = x * 1.0
    for t in range(3):
        for i in range(1, 5):
            u[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]) * y[t]
    return np.sum(u * u)


def _step(u, k):
    return u + 0.1 * np.tanh(k * u)


def helper_in_branch(x, y):
    u = x[:4] * 1.0
    for i in range(4):
        if np.sum(u) * y[i] > 0.0:
            u = _step(u, y[i])
        else:
            u = 0.9 * u
    return np.sum(u * u)


def nested_loops_branch(x, y):
    s = 0.0
    for i in range(3):
        for j in range(4):
            if math.sin(s + x[i]) > 0.0:
                s = s + y[j] * x[i]
            else:
                s = s * 0.9
    return s


PROGRAMS = [branch_on_product, branch_on_cos, branch_on_element, branch_on_dot, elif_chain,
            while_on_expression, conditional_expression, break_on_expression, early_return_in_loop,
            array_made_each_iteration, work_array_each_step, slice_read_then_element_write,
            element_read_then_slice_write, view_read_then_base_write_in_loop, accumulator_in_place,
            accumulator_scaled, state_overwritten_by_elements, helper_in_branch, nested_loops_branch]
