dist_man_MANS += man/tandem.1
dist_man_MANS += man/tandem-config.5
