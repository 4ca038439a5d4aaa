dist_man_MANS += man/tandem.1
