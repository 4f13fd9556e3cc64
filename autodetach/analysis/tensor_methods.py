"""Names of the methods a tensor (torch 2.13's `dir(torch.Tensor)`) or a built-in
container has: `base.meth()` on a value carrying a graph, with `meth` not among
them, is a method of some other object (`loss_dict.to_float_lossdict()`), which
the project's classes may say more about. Generated; public names only."""

BUILTIN_METHODS = frozenset("""
H T abs abs_ absolute absolute_ acos acos_ acosh acosh_ add add_ addbmm addbmm_ addcdiv addcdiv_ addcmul
addcmul_ addmm addmm_ addmv addmv_ addr addr_ adjoint all allclose amax amin aminmax angle any append apply_
arccos arccos_ arccosh arccosh_ arcsin arcsin_ arcsinh arcsinh_ arctan arctan2 arctan2_ arctan_ arctanh
arctanh_ argmax argmin argsort argwhere as_strided as_strided_ as_strided_scatter as_subclass asin asin_ asinh
asinh_ atan atan2 atan2_ atan_ atanh atanh_ backward baddbmm baddbmm_ bernoulli bernoulli_ bfloat16 bincount
bitwise_and bitwise_and_ bitwise_left_shift bitwise_left_shift_ bitwise_not bitwise_not_ bitwise_or
bitwise_or_ bitwise_right_shift bitwise_right_shift_ bitwise_xor bitwise_xor_ bmm bool broadcast_to byte
capitalize casefold cauchy_ ccol_indices cdouble ceil ceil_ center cfloat chalf char cholesky cholesky_inverse
cholesky_solve chunk clamp clamp_ clamp_max clamp_max_ clamp_min clamp_min_ clear clip clip_ clone coalesce
col_indices conj conj_physical conj_physical_ const_data_ptr contiguous copy copy_ copysign copysign_ corrcoef
cos cos_ cosh cosh_ count count_nonzero cov cpu cross crow_indices cuda cummax cummin cumprod cumprod_ cumsum
cumsum_ data data_ptr deg2rad deg2rad_ dense_dim dequantize det detach detach_ device diag diag_embed diagflat
diagonal diagonal_scatter diff difference difference_update digamma digamma_ dim dim_order discard dist div
div_ divide divide_ dot double dsplit dtype eig element_size encode endswith eq eq_ equal erf erf_ erfc erfc_
erfinv erfinv_ exp exp2 exp2_ exp_ expand expand_as expandtabs expm1 expm1_ exponential_ extend fill_
fill_diagonal_ find fix fix_ flatten flip fliplr flipud float float_power float_power_ floor floor_
floor_divide floor_divide_ fmax fmin fmod fmod_ format format_map frac frac_ frexp fromkeys gather gcd gcd_ ge
ge_ geometric_ geqrf ger get get_device grad grad_dtype grad_fn greater greater_ greater_equal greater_equal_
gt gt_ half hardshrink hash_tensor heaviside heaviside_ histc histogram hsplit hypot hypot_ i0 i0_ igamma
igamma_ igammac igammac_ imag index index_add index_add_ index_copy index_copy_ index_fill index_fill_
index_put index_put_ index_reduce index_reduce_ index_select indices inner insert int int_repr intersection
intersection_update inverse ipu is_coalesced is_complex is_conj is_contiguous is_cpu is_cuda is_distributed
is_floating_point is_inference is_ipu is_leaf is_maia is_meta is_mkldnn is_mps is_mtia is_neg is_nested
is_nonzero is_pinned is_quantized is_same_size is_set_to is_shared is_signed is_sparse is_sparse_csr is_vulkan
is_xla is_xpu isalnum isalpha isascii isclose isdecimal isdigit isdisjoint isfinite isidentifier isinf islower
isnan isneginf isnumeric isposinf isprintable isreal isspace issubset issuperset istft istitle isupper item
items itemsize join keys kron kthvalue layout lcm lcm_ ldexp ldexp_ le le_ lerp lerp_ less less_ less_equal
less_equal_ lgamma lgamma_ ljust log log10 log10_ log1p log1p_ log2 log2_ log_ log_normal_ log_softmax
logaddexp logaddexp2 logcumsumexp logdet logical_and logical_and_ logical_not logical_not_ logical_or
logical_or_ logical_xor logical_xor_ logit logit_ logsumexp long lower lstrip lstsq lt lt_ lu lu_solve mH mT
maketrans map2_ map_ masked_fill masked_fill_ masked_scatter masked_scatter_ masked_select matmul matrix_exp
matrix_power max maximum mean median min minimum mm mode module_load moveaxis movedim msort mtia mul mul_
multinomial multiply multiply_ mv mvlgamma mvlgamma_ name nan_to_num nan_to_num_ nanmean nanmedian nanquantile
nansum narrow narrow_copy nbytes ndim ndimension ne ne_ neg neg_ negative negative_ nelement new new_empty
new_empty_strided new_full new_ones new_tensor new_zeros nextafter nextafter_ nonzero nonzero_static norm
normal_ not_equal not_equal_ numel numpy orgqr ormqr outer output_nr partition permute pin_memory pinverse
polygamma polygamma_ pop popitem positive pow pow_ prelu prod put put_ q_per_channel_axis q_per_channel_scales
q_per_channel_zero_points q_scale q_zero_point qr qscheme quantile rad2deg rad2deg_ random_ ravel real
reciprocal reciprocal_ record_stream register_hook register_post_accumulate_grad_hook reinforce relu relu_
remainder remainder_ remove removeprefix removesuffix renorm renorm_ repeat repeat_interleave replace
requires_grad requires_grad_ reshape reshape_as resize resize_ resize_as resize_as_ resize_as_sparse_
resolve_conj resolve_neg retain_grad retains_grad reverse rfind rindex rjust roll rot90 round round_
row_indices rpartition rsplit rsqrt rsqrt_ rstrip scatter scatter_ scatter_add scatter_add_ scatter_reduce
scatter_reduce_ select select_scatter set_ setdefault sgn sgn_ shape share_memory_ short sigmoid sigmoid_ sign
sign_ signbit sin sin_ sinc sinc_ sinh sinh_ size slice_inverse slice_scatter slogdet smm softmax solve sort
sparse_dim sparse_mask sparse_resize_ sparse_resize_and_clear_ split split_with_sizes splitlines sqrt sqrt_
square square_ squeeze squeeze_ sspaddmm startswith std stft storage storage_offset storage_type stride strip
sub sub_ subtract subtract_ sum sum_to_size svd swapaxes swapaxes_ swapcase swapdims swapdims_ symeig
symmetric_difference symmetric_difference_update t t_ take take_along_dim tan tan_ tanh tanh_ tensor_split
tile title to to_dense to_mkldnn to_padded_tensor to_sparse to_sparse_bsc to_sparse_bsr to_sparse_coo
to_sparse_csc to_sparse_csr tolist topk trace translate transpose transpose_ triangular_solve tril tril_ triu
triu_ true_divide true_divide_ trunc trunc_ type type_as unbind unflatten unfold uniform_ union unique
unique_consecutive unsafe_chunk unsafe_split unsafe_split_with_sizes unsqueeze unsqueeze_ untyped_storage
update upper values var vdot view view_as volatile vsplit where xlogy xlogy_ xpu zero_ zfill
""".split())


# A tensor's methods that no built-in container has (`mean`, `sum`, `detach`): a call of one
# names a tensor's method, not a project class's of the same name.
TENSOR_ONLY = frozenset(m for m in BUILTIN_METHODS if not any(hasattr(t, m) for t in (dict, list, set, str)))
