"""An object with the CUDA Array Interface and nothing else, as another library's array is
to cutwin (tests of capturing and importing such arrays use it)."""


class InterfaceOnly:
    def __init__(self, arr):
        self._arr = arr

    @property
    def __cuda_array_interface__(self):
        return self._arr.__cuda_array_interface__
