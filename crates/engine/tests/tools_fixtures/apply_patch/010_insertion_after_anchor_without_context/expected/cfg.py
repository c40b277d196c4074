class Config:
    debug = False
    name = 'x'

class Other:
    pass
