class Config:
    name = 'x'

class Other:
    pass
