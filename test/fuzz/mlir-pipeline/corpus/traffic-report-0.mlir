func.func @hand_counts(%a: tensor<1024x1024xf16>, %b: tensor<1024x1024xf16>,
