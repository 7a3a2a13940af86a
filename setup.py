"""Build hook: cffi compiles engine_c/ into bot._engine (see build_engine.py)."""

from setuptools import setup

setup(cffi_modules=["build_engine.py:make_ffibuilder"])
